import {
  LAST_UPDATED_ANNOTATION,
  uidOf,
  type ClientInput,
  type StoredClient,
} from '../../../core/auth/clients/administration.ts';
import { REGISTRAR_CLIENT_ID } from '../../../core/auth/clients/registrar.ts';
import { creationTimestamp } from '../../../core/cluster/objects.ts';
import type { ErrorReport } from '../../errors.ts';
import { clientBodySchema, clientRecordSchema } from './schemas.ts';
import type { z } from 'zod';

/**
 * Spec 2's representation of a client and the resource's spec, both ways: lists are comma-separated strings,
 * clientSettings and tokenSettings JSON strings. What cannot be read (a member of the wrong type, JSON that is
 * not, a clientSettings without both booleans) is reported like a broken rule, `E4000`.
 */
export const REQUIRE_PROOF_KEY = 'settings.client.require-proof-key';
export const REQUIRE_CONSENT = 'settings.client.require-authorization-consent';

/** DHIS2's class of a client, which its ObjectReports name. */
export const KLASS = 'org.hisp.dhis.security.oauth2.client.Dhis2OAuth2Client';

type ClientRecord = z.infer<typeof clientRecordSchema>;
export const RECORD_FIELDS = Object.keys(clientRecordSchema.shape) as (keyof ClientRecord)[];
/** DHIS2's members of a list entry when `fields` is absent. */
export const DEFAULT_LIST_FIELDS = 'id,displayName';

const e4000 = (errorProperty: string, message: string): ErrorReport => ({ message, errorCode: 'E4000', errorProperty });

/** Why a write of the internal registrar client is refused. */
export const RESERVED_REPORT: ErrorReport = e4000('clientId', `${REGISTRAR_CLIENT_ID} is reserved.`);

const listOf = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** A JSON object from a JSON string member, or the report of why not. */
function jsonObject(
  property: string,
  text: string | undefined,
  reports: ErrorReport[],
): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    reports.push(e4000(property, `${property} must be valid JSON.`));
    return undefined;
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  reports.push(e4000(property, `${property} must be a JSON object.`));
  return undefined;
}

export type ParsedBody = { ok: true; input: ClientInput } | { ok: false; reports: ErrorReport[] };

export function parseClientBody(body: unknown): ParsedBody {
  const parsed = clientBodySchema.safeParse(body);
  if (!parsed.success)
    return {
      ok: false,
      reports: parsed.error.issues.map((issue) => {
        const property = issue.path.length > 0 ? String(issue.path[0]) : 'body';
        return e4000(property, `${property}: ${issue.message}`);
      }),
    };
  const member = parsed.data;
  const reports: ErrorReport[] = [];
  const settings = jsonObject('clientSettings', member.clientSettings, reports);
  let requireProofKey = true;
  let requireAuthorizationConsent = true;
  if (settings) {
    const proof = settings[REQUIRE_PROOF_KEY];
    const consent = settings[REQUIRE_CONSENT];
    if (typeof proof !== 'boolean' || typeof consent !== 'boolean')
      reports.push(
        e4000(
          'clientSettings',
          `clientSettings must hold both ${REQUIRE_PROOF_KEY} and ${REQUIRE_CONSENT} as booleans.`,
        ),
      );
    else [requireProofKey, requireAuthorizationConsent] = [proof, consent];
  }
  const tokenSettings = jsonObject('tokenSettings', member.tokenSettings, reports);
  const jwks = jsonObject('jwks', member.jwks, reports);
  if (reports.length > 0) return { ok: false, reports };
  return {
    ok: true,
    input: {
      draft: {
        clientId: member.clientId,
        clientAuthenticationMethods: listOf(member.clientAuthenticationMethods),
        authorizationGrantTypes: listOf(member.authorizationGrantTypes),
        redirectUris: listOf(member.redirectUris),
        scopes: listOf(member.scopes),
        requireProofKey,
        ...(tokenSettings && { tokenSettings }),
        ...(jwks && { jwks }),
      },
      ...(member.name !== undefined && { name: member.name }),
      requireAuthorizationConsent,
      ...(member.clientSecret !== undefined && { secret: member.clientSecret }),
    },
  };
}

/** The client as the API shows it; never its secret. */
export function clientRecord(client: StoredClient): ClientRecord {
  const { spec } = client;
  const name = spec.name ?? spec.clientId;
  const created = creationTimestamp(client);
  return {
    id: uidOf(client),
    name,
    displayName: name,
    clientId: spec.clientId,
    clientAuthenticationMethods: spec.clientAuthenticationMethods.join(','),
    authorizationGrantTypes: spec.authorizationGrantTypes.join(','),
    redirectUris: (spec.redirectUris ?? []).join(','),
    scopes: (spec.scopes ?? []).join(','),
    clientSettings: JSON.stringify({
      [REQUIRE_PROOF_KEY]: spec.clientSettings?.requireProofKey ?? true,
      [REQUIRE_CONSENT]: spec.clientSettings?.requireAuthorizationConsent ?? true,
    }),
    ...(spec.tokenSettings && { tokenSettings: JSON.stringify(spec.tokenSettings) }),
    ...(spec.jwks && { jwks: JSON.stringify(spec.jwks) }),
    created,
    lastUpdated: client.metadata.annotations?.[LAST_UPDATED_ANNOTATION] ?? created,
  };
}
