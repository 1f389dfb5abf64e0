import { z } from 'zod';
import type { KindRef } from '../cluster/objects.ts';
import { metadataSchema } from './common.ts';

/**
 * The core/v1 Secret, the one built-in kind that manifests may hold besides Stratus's own: provider credentials
 * live in Secrets (never in a resource's spec or a worker's input). Validated as the API server would.
 */
export const secretSchema = z.object({
  apiVersion: z.literal('v1'),
  kind: z.literal('Secret'),
  metadata: metadataSchema,
  type: z.string().default('Opaque'),
  data: z.record(z.string(), z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, { message: 'must be base64' })).optional(),
  stringData: z.record(z.string(), z.string()).optional(),
  immutable: z.boolean().optional(),
});

export type Secret = z.infer<typeof secretSchema>;

export const secretKind: KindRef & { schema: typeof secretSchema } = {
  apiVersion: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
  statusSubresource: false,
  schema: secretSchema,
};

/** The value of one key, as Kubernetes merges `stringData` over `data` on write. */
export function secretValue(secret: Secret, key: string): string | undefined {
  const text = secret.stringData?.[key];
  if (text !== undefined) return text;
  const encoded = secret.data?.[key];
  return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
}
