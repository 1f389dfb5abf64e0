import { ApiError, type FieldCause } from '../errors.ts';
import type { KindRef, KubeObject } from '../objects.ts';

/**
 * What the Kubernetes API server does to a core/v1 Secret on every write, done the same here so that code reading
 * Secrets sees one shape on both adapters: `stringData` is merged into `data` (base64) and dropped, keys are
 * checked, and an `immutable` Secret keeps its data.
 */
const KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function isSecretKind(ref: KindRef): boolean {
  return ref.apiVersion === 'v1' && ref.kind === 'Secret';
}

interface SecretShape extends KubeObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
  type?: string;
}

/** The Secret as stored after this write; `stored` is the current object for an update. */
export function normalizeSecret(input: KubeObject, stored?: KubeObject): KubeObject {
  const { stringData, ...secret } = input as SecretShape;
  const data: Record<string, string> = { ...(secret.data ?? {}) };
  for (const [key, value] of Object.entries(stringData ?? {}))
    data[key] = Buffer.from(value, 'utf8').toString('base64');
  const causes: FieldCause[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (!KEY.test(key) || key.length > 253)
      causes.push({
        field: `data[${key}]`,
        message: "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
      });
    if (typeof value !== 'string' || !BASE64.test(value))
      causes.push({ field: `data[${key}]`, message: 'must be base64' });
  }
  const before = stored as SecretShape | undefined;
  if (before?.immutable) {
    if (JSON.stringify(before.data ?? {}) !== JSON.stringify(data) || secret.immutable !== true)
      causes.push({ field: 'data', message: 'field is immutable when `immutable` is set' });
  }
  if (before && (before.type ?? 'Opaque') !== (secret.type ?? 'Opaque'))
    causes.push({ field: 'type', message: 'field is immutable' });
  if (causes.length > 0) {
    throw new ApiError(
      'Invalid',
      `Secret "${input.metadata.name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join('; ')}`,
      causes,
    );
  }
  const normalized: SecretShape = { ...secret, type: secret.type ?? 'Opaque' };
  if (Object.keys(data).length > 0) normalized.data = data;
  else delete normalized.data;
  return normalized;
}
