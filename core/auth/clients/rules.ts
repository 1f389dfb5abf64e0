import type { KubeObject } from '../../cluster/objects.ts';
import {
  clientAuthenticationMethod,
  DYNAMIC_REGISTRATION,
  oauth2Scope,
  REGISTRATION_LABEL,
  type OAuth2Client,
} from '../../resources/oauth2-client/schema.ts';
import { redirectUriRefusal, type RedirectUriRefusal } from '../redirect-uri.ts';
import { REGISTRAR_CLIENT_ID } from './registrar.ts';
import { tokenSettingsFrom } from './token-settings.ts';

/**
 * The rules of an OAuth2 client (spec 2's "OAuth2 client" table and its Errors table), in one place: the client
 * administration API refuses a client that breaks one (409, `E4000`, one error report per failure), the
 * OAuth2Client controller shows the failures in the client's conditions, and the client directory refuses to use
 * such a client at all. The rules judge a draft, so that the API's representation (comma-separated strings, JSON
 * strings) and a stored resource are judged alike.
 */

/** One failure, as the WebMessage body of `E4000` reports it; `errorProperty` names the API's member. */
export interface ClientRuleFailure {
  message: string;
  errorCode: 'E4000';
  errorProperty: ClientProperty;
}

export type ClientProperty =
  | 'clientId'
  | 'name'
  | 'clientSecret'
  | 'clientAuthenticationMethods'
  | 'authorizationGrantTypes'
  | 'redirectUris'
  | 'scopes'
  | 'clientSettings'
  | 'tokenSettings'
  | 'jwks';

/** The methods whose credential is the client secret (client_secret_jwt signs with it). */
export const SECRET_METHODS: readonly string[] = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt'];
/** Grant types a client may have, but the registrar; `client_credentials` belongs to the registrar alone. */
export const CLIENT_GRANT_TYPES: readonly string[] = ['authorization_code', 'refresh_token'];
const REGISTRAR_GRANT_TYPES: readonly string[] = [...CLIENT_GRANT_TYPES, 'client_credentials'];

/**
 * The longest text each member of a client may hold, in characters: the columns of Spring Authorization Server's
 * client table, whose records Stratus's are shaped like (DESIGN.md §5). A list counts as the API writes it, its
 * items joined by commas. The secret is bounded where it is written (the API's body schema), since the rules
 * see only whether there is one.
 */
export const CLIENT_TEXT_LIMITS = {
  clientId: 100,
  name: 200,
  clientSecret: 200,
  clientAuthenticationMethods: 1000,
  authorizationGrantTypes: 1000,
  redirectUris: 1000,
  scopes: 1000,
} as const satisfies Partial<Record<ClientProperty, number>>;

/** A client as the rules see it. */
export interface ClientDraft {
  clientId: string;
  /** The display name; absent: the client id stands for it. */
  name?: string;
  clientAuthenticationMethods: readonly string[];
  authorizationGrantTypes: readonly string[];
  redirectUris: readonly string[];
  scopes: readonly string[];
  requireProofKey: boolean;
  tokenSettings?: Readonly<Record<string, unknown>>;
  jwks?: unknown;
  /** Whether the client has a secret (a `clientSecretRef`, or a `clientSecret` in the request). */
  hasSecret: boolean;
}

export interface RuleContext {
  /** The system setting `deviceEnrollmentRedirectAllowlist`: the custom-scheme redirect URIs allowed, verbatim. */
  allowlist: readonly string[];
  /** The other clients (resource names) that claim this client id and so make it not unique. */
  rivals: readonly string[];
  /** The client is the internal registrar (the resource `system-dcr-registrar-client` with that client id). */
  registrar: boolean;
  /** How the client came to be: a device registered itself (RFC 7591), or an administrator (the default). */
  registration?: 'managed' | 'dynamic';
  /**
   * The client is judged as stored, not as written: spec 2 keeps a persisted client's stored settings and does not
   * switch it to PKCE retroactively, so the PKCE rule binds new and updated clients only (the client
   * administration). A stored client without it is flagged instead (`requiresProofKey`).
   */
  stored?: boolean;
}

const refusals: Record<RedirectUriRefusal, string> = {
  'not-absolute': 'is not an absolute http, https or custom-scheme URI',
  fragment: 'has a fragment, which RFC 6749 §3.1.2 forbids',
  'custom-scheme-not-allowed':
    'uses a custom scheme but is not on the system setting deviceEnrollmentRedirectAllowlist',
  'not-on-allowlist': 'matches no glob of the system setting deviceEnrollmentRedirectAllowlist',
};

const quoted = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

export function clientRuleFailures(draft: ClientDraft, context: RuleContext): ClientRuleFailure[] {
  const failures: ClientRuleFailure[] = [];
  const fail = (errorProperty: ClientProperty, message: string) =>
    failures.push({ message, errorCode: 'E4000', errorProperty });

  // A member past its limit is reported by its length alone: its items are not judged, nor quoted in messages.
  const withinLimit = (property: keyof typeof CLIENT_TEXT_LIMITS, text: string) => {
    const limit = CLIENT_TEXT_LIMITS[property];
    if (text.length <= limit) return true;
    fail(property as ClientProperty, `${property} holds ${text.length} characters; at most ${limit} are allowed.`);
    return false;
  };

  const clientIdWithinLimit = withinLimit('clientId', draft.clientId);
  if (draft.clientId.trim() === '') fail('clientId', 'clientId must not be empty.');
  if (draft.clientId === REGISTRAR_CLIENT_ID && !context.registrar)
    fail('clientId', `The client id ${REGISTRAR_CLIENT_ID} is reserved for the internal registrar client.`);
  if (clientIdWithinLimit && context.rivals.length > 0)
    fail(
      'clientId',
      `The client id '${draft.clientId}' is not unique: it is also claimed by ${context.rivals.join(', ')}.`,
    );

  if (draft.name !== undefined) withinLimit('name', draft.name);

  const methods = draft.clientAuthenticationMethods;
  const methodsWithinLimit = withinLimit('clientAuthenticationMethods', methods.join(','));
  const unknownMethods = methods.filter((m) => !(clientAuthenticationMethod.options as string[]).includes(m));
  if (methods.length === 0) fail('clientAuthenticationMethods', 'clientAuthenticationMethods must name a method.');
  if (methodsWithinLimit && unknownMethods.length > 0)
    fail(
      'clientAuthenticationMethods',
      `Unknown client authentication methods ${quoted(unknownMethods)}: allowed are ${clientAuthenticationMethod.options.join(', ')}.`,
    );
  const secretMethods = methods.filter((m) => SECRET_METHODS.includes(m));
  // The registrar is made without a secret on purpose: its client_credentials grant stays unusable until an
  // administrator gives it one (core/auth/clients/registrar.ts).
  if (secretMethods.length > 0 && !draft.hasSecret && !context.registrar)
    fail('clientSecret', `The methods ${quoted(secretMethods)} need a client secret.`);
  if (draft.jwks !== undefined && !hasKeys(draft.jwks))
    fail('jwks', 'jwks must be a JWK Set: an object whose keys member lists at least one key.');
  else if (draft.jwks === undefined && methods.includes('private_key_jwt'))
    fail('jwks', 'private_key_jwt needs the client’s public keys (jwks, a JWK Set).');

  const grants = draft.authorizationGrantTypes;
  const allowedGrants = context.registrar ? REGISTRAR_GRANT_TYPES : CLIENT_GRANT_TYPES;
  const refusedGrants = grants.filter((g) => !allowedGrants.includes(g));
  const grantsWithinLimit = withinLimit('authorizationGrantTypes', grants.join(','));
  if (grants.length === 0) fail('authorizationGrantTypes', 'authorizationGrantTypes must name a grant type.');
  if (grantsWithinLimit && refusedGrants.length > 0)
    fail(
      'authorizationGrantTypes',
      `Grant types ${quoted(refusedGrants)} are not allowed: a client may have only ${CLIENT_GRANT_TYPES.join(' and ')}` +
        ` (client_credentials belongs to the internal registrar client).`,
    );

  const redirectUrisWithinLimit = withinLimit('redirectUris', draft.redirectUris.join(','));
  for (const uri of redirectUrisWithinLimit ? draft.redirectUris : []) {
    const refusal = redirectUriRefusal(uri, context.allowlist, context.registration);
    if (refusal) fail('redirectUris', `The redirect URI '${uri}' ${refusals[refusal]}.`);
  }

  const refusedScopes = draft.scopes.filter((s) => !(oauth2Scope.options as string[]).includes(s));
  const scopesWithinLimit = withinLimit('scopes', draft.scopes.join(','));
  // The registrar signs initial access tokens for itself and asks for no user's consent: it alone has no scope.
  if (draft.scopes.length === 0 && !context.registrar)
    fail('scopes', `scopes must name a scope: ${oauth2Scope.options.join(', ')}.`);
  if (scopesWithinLimit && refusedScopes.length > 0)
    fail('scopes', `Scopes ${quoted(refusedScopes)} are not allowed: only ${oauth2Scope.options.join(', ')}.`);

  if (draft.requireProofKey !== true && !context.stored)
    fail('clientSettings', 'settings.client.require-proof-key must be true: every client uses S256 PKCE (RFC 7636).');

  const settings = tokenSettingsFrom(draft.tokenSettings);
  if (!settings.ok) for (const problem of settings.problems) fail('tokenSettings', `tokenSettings: ${problem}.`);
  return failures;
}

/**
 * Whether the authorization server requires S256 PKCE of a stored client. Only a client stored with
 * `settings.client.require-proof-key` false (before the rule, or applied so) does without; its conditions flag it.
 */
export function requiresProofKey(client: OAuth2Client): boolean {
  return draftOf(client).requireProofKey;
}

function hasKeys(jwks: unknown): boolean {
  const keys = (jwks as { keys?: unknown } | undefined)?.keys;
  return typeof jwks === 'object' && jwks !== null && Array.isArray(keys) && keys.length > 0;
}

/** A stored client as the rules see it. */
export function draftOf(client: OAuth2Client): ClientDraft {
  const { spec } = client;
  return {
    clientId: spec.clientId,
    ...(spec.name !== undefined && { name: spec.name }),
    clientAuthenticationMethods: spec.clientAuthenticationMethods,
    authorizationGrantTypes: spec.authorizationGrantTypes,
    redirectUris: spec.redirectUris ?? [],
    scopes: spec.scopes ?? [],
    // The schema defaults it to true; an object stored without validation may lack it, which means the default.
    requireProofKey: spec.clientSettings?.requireProofKey ?? true,
    ...(spec.tokenSettings && { tokenSettings: spec.tokenSettings }),
    ...(spec.jwks && { jwks: spec.jwks }),
    hasSecret: spec.clientSecretRef !== undefined,
  };
}

/** A client a device registered itself is held to the allow-list's globs (core/auth/redirect-uri.ts). */
export function registrationOf(client: OAuth2Client): 'managed' | 'dynamic' {
  return (client.metadata.labels as Record<string, string> | undefined)?.[REGISTRATION_LABEL] === DYNAMIC_REGISTRATION
    ? 'dynamic'
    : 'managed';
}

/** Whether the resource is the internal registrar client, which alone may carry the reserved id. */
export function isRegistrar(client: OAuth2Client): boolean {
  return client.metadata.name === REGISTRAR_CLIENT_ID && client.spec.clientId === REGISTRAR_CLIENT_ID;
}

/**
 * The other clients that make this one's client id ambiguous, as the client directory resolves it: a client named
 * like its client id wins over the others; otherwise every claimant is ambiguous.
 */
export function rivalsOf(client: OAuth2Client, all: readonly (OAuth2Client & KubeObject)[]): string[] {
  if (client.metadata.name === client.spec.clientId) return [];
  return all
    .filter(
      (other) =>
        other.metadata.name !== client.metadata.name &&
        other.spec.clientId === client.spec.clientId &&
        !other.metadata.deletionTimestamp,
    )
    .map((other) => other.metadata.name)
    .sort();
}

/** Whether judging the client needs the allow-list: only a custom-scheme redirect URI is judged by it. */
export function needsAllowlist(draft: Pick<ClientDraft, 'redirectUris'>, registration = 'managed'): boolean {
  return registration === 'dynamic' || draft.redirectUris.some((uri) => !/^https?:/i.test(uri));
}
