/** The error bodies of docs/errors.md, by envelope: which one a fuzzed answer carries, if any. */
export type Envelope = 'native' | 'openEO' | 'OAuth2' | 'WebMessage' | 'read-only';

export function envelopeOf(body: unknown): Envelope | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b.detail === 'string' && Object.keys(b).length === 1) return 'native';
  if (Array.isArray(b.detail) && Object.keys(b).length === 1)
    return b.detail.every((item: { loc?: unknown; msg?: unknown; type?: unknown }) => {
      return Array.isArray(item.loc) && typeof item.msg === 'string' && typeof item.type === 'string';
    })
      ? 'native'
      : undefined;
  if (b.id === 'read-only')
    return b.code === 'PermissionsInsufficient' && typeof b.message === 'string' ? 'read-only' : undefined;
  if (typeof b.id === 'string' && typeof b.code === 'string')
    return typeof b.message === 'string' && Array.isArray(b.links) ? 'openEO' : undefined;
  if (typeof b.error === 'string') return typeof b.error_description === 'string' ? 'OAuth2' : undefined;
  if (typeof b.httpStatusCode === 'number')
    return typeof b.message === 'string' && b.status === 'ERROR' ? 'WebMessage' : undefined;
  return undefined;
}
