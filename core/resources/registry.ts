import type { z } from 'zod';
import { isApiError, type FieldCause } from '../cluster/errors.ts';
import { checkName, namespaceOf } from '../cluster/embedded/names.ts';
import type { KindRef, KubeObject } from '../cluster/objects.ts';
import { analyticsTableKind } from './analytics-table/schema.ts';
import { dataSourceKind } from './data-source/schema.ts';
import { datasetKind } from './dataset/schema.ts';
import { deliveryKind } from './delivery/schema.ts';
import { exportKind } from './export/schema.ts';
import { featureCollectionKind } from './feature-collection/schema.ts';
import { ingestionKind } from './ingestion/schema.ts';
import { initialAccessTokenKind } from './initial-access-token/schema.ts';
import type { ResourceKind } from './kind.ts';
import { oauth2AuthorizationConsentKind } from './oauth2-authorization-consent/schema.ts';
import { oauth2AuthorizationKind } from './oauth2-authorization/schema.ts';
import { oauth2ClientAssertionKind } from './oauth2-client-assertion/schema.ts';
import { oauth2ClientKind } from './oauth2-client/schema.ts';
import { processingJobKind } from './processing-job/schema.ts';
import { programKind } from './program/schema.ts';
import { scheduleKind } from './schedule/schema.ts';
import { secretKind } from './secret.ts';
import { sessionKind } from './session/schema.ts';
import { trackedEntityTypeKind } from './tracked-entity-type/schema.ts';
import { userKind } from './user/schema.ts';
import { workflowKind } from './workflow/schema.ts';
import { writerClaimKind } from './writer-claim/schema.ts';

export { API_VERSION, GROUP, VERSION } from './kind.ts';
export type { PrinterColumn, ResourceKind } from './kind.ts';

export const resourceKinds: readonly ResourceKind[] = [
  dataSourceKind,
  datasetKind,
  ingestionKind,
  featureCollectionKind,
  scheduleKind,
  processingJobKind,
  workflowKind,
  exportKind,
  deliveryKind,
  programKind,
  trackedEntityTypeKind,
  oauth2ClientKind,
  userKind,
  oauth2AuthorizationKind,
  oauth2AuthorizationConsentKind,
  initialAccessTokenKind,
  sessionKind,
  oauth2ClientAssertionKind,
  writerClaimKind,
  analyticsTableKind,
];

/** Kinds accepted in manifests: Stratus's own, and the built-in Secret. */
type ManifestKind = KindRef & { schema: z.ZodType };
const manifestKinds: readonly ManifestKind[] = [...resourceKinds, secretKind];

export function findKind(apiVersion: string, kind: string): ManifestKind | undefined {
  return manifestKinds.find((k) => k.apiVersion === apiVersion && k.kind === kind);
}

export function kindByName(kind: string): ResourceKind {
  const found = resourceKinds.find((k) => k.kind === kind);
  if (!found) throw new Error(`unknown kind ${kind}`);
  return found;
}

export type ValidationResult = { ok: true; object: KubeObject } | { ok: false; issues: FieldCause[] };

function issuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)),
    '',
  );
}

export function issuesOf(error: z.ZodError): FieldCause[] {
  return error.issues.map((issue) => ({ field: issuePath(issue.path) || '(root)', message: issue.message }));
}

/**
 * The API server's name and namespace rules, each checked on its own and on the object as written, so that a
 * manifest fails before anything is applied and with these failures beside those of its schema.
 */
function nameIssues(kind: KindRef, object: unknown): FieldCause[] {
  const metadata = (object as { metadata?: unknown }).metadata;
  if (typeof metadata !== 'object' || metadata === null) return [];
  const { name, namespace } = metadata as { name?: unknown; namespace?: unknown };
  const causes: FieldCause[] = [];
  const check = (rule: () => unknown, field: string) => {
    try {
      rule();
    } catch (err) {
      if (!isApiError(err)) throw err;
      causes.push(...(err.causes.length > 0 ? err.causes : [{ field, message: err.message }]));
    }
  };
  // A name or namespace of another type than a string is the schema's to report.
  if (name === undefined || typeof name === 'string') check(() => checkName(kind, name), 'metadata.name');
  if (namespace === undefined || typeof namespace === 'string')
    check(() => namespaceOf(kind, namespace), 'metadata.namespace');
  return causes;
}

/** Validates a Stratus object against its kind's schema and returns it with defaults applied. */
export function validateObject(object: unknown): ValidationResult {
  const { apiVersion, kind } = (object ?? {}) as { apiVersion?: unknown; kind?: unknown };
  const found = typeof apiVersion === 'string' && typeof kind === 'string' ? findKind(apiVersion, kind) : undefined;
  if (!found) {
    const known = manifestKinds.map((k) => k.kind).join(', ');
    return {
      ok: false,
      issues: [
        { field: 'kind', message: `unknown kind ${String(apiVersion)}/${String(kind)}; known kinds are ${known}` },
      ],
    };
  }
  const parsed = found.schema.safeParse(object);
  const schemaIssues = parsed.success ? [] : issuesOf(parsed.error);
  // A field the schema already refused is not reported twice.
  const issues = [
    ...nameIssues(found, object).filter((cause) => !schemaIssues.some((issue) => issue.field === cause.field)),
    ...schemaIssues,
  ];
  if (!parsed.success || issues.length > 0) return { ok: false, issues };
  return { ok: true, object: parsed.data as KubeObject };
}
