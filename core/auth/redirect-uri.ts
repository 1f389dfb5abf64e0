/**
 * Redirect URI rules of spec 2. A redirect URI is compared with the registered ones character for character
 * (no normalisation, no loopback port wildcard): whatever is not registered verbatim gets no redirect, so the
 * authorization endpoint cannot be turned into an open redirector.
 */

export type RedirectUriRefusal = 'not-absolute' | 'fragment' | 'custom-scheme-not-allowed' | 'not-on-allowlist';

function schemeOf(uri: string): string | undefined {
  return /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1]?.toLowerCase();
}

/** Exact match against the client's registered redirect URIs. */
export function isRegisteredRedirectUri(requested: string, registered: readonly string[]): boolean {
  return registered.includes(requested);
}

/** Why a URI cannot be any redirect URI: relative (or a scheme without a host), or with a fragment (RFC 6749 §3.1.2). */
export function malformedRedirectUri(uri: string): 'not-absolute' | 'fragment' | undefined {
  const scheme = schemeOf(uri);
  if (!scheme || !URL.canParse(uri)) return 'not-absolute';
  if (uri.includes('#')) return 'fragment';
  if ((scheme === 'http' || scheme === 'https') && new URL(uri).host === '') return 'not-absolute';
  return undefined;
}

/**
 * Whether a redirect URI may be registered (or used): well-formed; `http` and `https` always, a custom scheme
 * only when the very URI is on the allow-list (`deviceEnrollmentRedirectAllowlist`). A client that registered
 * itself (`dynamic`) is held to the allow-list's globs instead, for every URI, as it was at its registration.
 * Answers why not, or undefined when it may.
 */
export function redirectUriRefusal(
  uri: string,
  allowlist: readonly string[],
  registration: 'managed' | 'dynamic' = 'managed',
): RedirectUriRefusal | undefined {
  const malformed = malformedRedirectUri(uri);
  if (malformed) return malformed;
  if (registration === 'dynamic') return matchesAllowlist(uri, allowlist) ? undefined : 'not-on-allowlist';
  const scheme = schemeOf(uri);
  if (scheme === 'http' || scheme === 'https') return undefined;
  return allowlist.includes(uri) ? undefined : 'custom-scheme-not-allowed';
}

/** A glob of the enrolment allow-list: `*` stands for any run of characters, everything else for itself. */
function globPattern(glob: string): RegExp {
  const escaped = glob
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${escaped}$`);
}

/** Schemes whose URIs run or read something in the browser rather than open an app: never an enrolment target. */
const UNSAFE_SCHEMES = new Set(['javascript', 'data', 'vbscript', 'file', 'blob']);
const MAX_GLOB_LENGTH = 2048;

/**
 * What is wrong with an entry of the allow-list, or undefined when it is a sane URI glob: a literal scheme (a `*`
 * there would admit `javascript:`), no fragment, whitespace or control characters, a URI once each `*` stands
 * for a character, and for `http(s)` a literal host (a `*` there would deliver initial access tokens to any site).
 */
export function allowlistEntryProblem(glob: string): string | undefined {
  if (glob.length > MAX_GLOB_LENGTH) return `must be at most ${MAX_GLOB_LENGTH} characters`;
  if (/[\s\p{Cc}]/u.test(glob)) return 'must not contain whitespace or control characters';
  const scheme = schemeOf(glob);
  if (!scheme) return 'must start with a scheme without *, such as myapp:';
  if (UNSAFE_SCHEMES.has(scheme)) return `must not use the ${scheme}: scheme`;
  if (glob.includes('#')) return 'must not have a fragment';
  if (!URL.canParse(glob.replaceAll('*', 'x'))) return 'is not a URI (with each * read as a character)';
  if ((scheme === 'http' || scheme === 'https') && !/^https?:\/\/[^/?*]+([/?]|$)/i.test(glob))
    return 'must name its host, without * (http and https)';
  return undefined;
}

/** Whether `uri` matches one of the allow-list's globs (device enrolment deep links). */
export function matchesAllowlist(uri: string, allowlist: readonly string[]): boolean {
  return allowlist.some((glob) => globPattern(glob).test(uri));
}

/** Appends the response parameters to a registered redirect URI, keeping its own query (RFC 6749 §3.1.2). */
export function redirectWith(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(key, value);
  return url.href;
}
