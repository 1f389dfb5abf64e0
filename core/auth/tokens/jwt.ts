import { sign } from 'node:crypto';
import { promisify } from 'node:util';
import { createLocalJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { SIGNING_ALG, type SigningKeys } from '../keys/signing-keys.ts';
import { Lru } from '../../cache/lru.ts';

/**
 * Signing and checking the JWTs the authorization server issues. Every check pins the algorithm (RS256 only, so
 * `alg: none` and HMAC tokens keyed with the public key are refused), the key (from the published JWKS, by kid),
 * the token type (`typ`), the issuer, the audience when one is expected, and exp/nbf with a small leeway.
 */
export const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * Header `typ` of each JWT: RFC 9068 for access tokens; initial access tokens (device enrolment) and the state of
 * an external sign-in get their own, so no token passes for another (an IAT is no API credential).
 */
export const TOKEN_TYP = {
  access: 'at+jwt',
  id: 'JWT',
  initialAccess: 'iat+jwt',
  // The browser's half of a sign-in through an external provider (core/auth/federation/login/state.ts).
  loginState: 'login-state+jwt',
} as const;
export type TokenKind = keyof typeof TOKEN_TYP;

export class InvalidJwtError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidJwtError';
  }
}

const keySets = new WeakMap<SigningKeys, ReturnType<typeof createLocalJWKSet>>();
function keySetOf(keys: SigningKeys) {
  let set = keySets.get(keys);
  if (!set) {
    set = createLocalJWKSet(keys.jwks);
    keySets.set(keys, set);
  }
  return set;
}

/** node:crypto's `sign` with a callback, which signs on libuv's pool rather than on the event loop. */
const signOnPool = promisify(sign);
/** The digest of `SIGNING_ALG` (RS256). */
const SIGNING_HASH = 'sha256';

const base64url = (text: string) => Buffer.from(text).toString('base64url');

/**
 * A JWT in the JWS compact serialization (RFC 7515 §7.1), signed with RS256: RSASSA-PKCS1-v1_5 over SHA-256
 * (RFC 7518 §3.3), which is what node:crypto does with an RSA key and `sha256`; the key was checked when it was
 * loaded (RSA of 2048 bits or more, keys/keystore.ts). Tokens are signed here rather than with jose's `SignJWT`,
 * whose WebCrypto path clones the claims and encodes base64url in JavaScript: a grant signs two tokens, and that
 * cost the event loop 0.05 to 0.09 ms more each. Every token this server accepts is still checked by jose
 * (`verifyJwt`).
 */
export async function signJwt(keys: SigningKeys, kind: TokenKind, claims: JWTPayload): Promise<string> {
  return signJwtInput(keys, jwtSigningInput(keys, kind, claims));
}

/**
 * A JWT's signing input (RFC 7515 §5.1: its header and claims, base64url, joined by a dot). RSASSA-PKCS1-v1_5 is
 * deterministic, so the input names its token as well as the whole token does, before the signature is made.
 */
export function jwtSigningInput(keys: SigningKeys, kind: TokenKind, claims: JWTPayload): string {
  const header = { alg: SIGNING_ALG, kid: keys.kid, typ: TOKEN_TYP[kind] };
  return `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
}

/** The JWT of a signing input (`jwtSigningInput`), signed on libuv's pool. */
export async function signJwtInput(keys: SigningKeys, input: string): Promise<string> {
  const signature = await signOnPool(SIGNING_HASH, Buffer.from(input), keys.privateKey);
  return `${input}.${signature.toString('base64url')}`;
}

/**
 * Tokens whose signature and fixed claims (type, issuer, audience) were already checked, with their claims: a
 * signature does not change, so a token presented again (a client calls the API with the same access token for
 * minutes) skips the RSA verification; its time claims are checked again on every use. Keys change only with a
 * restart, which empties the cache.
 */
const VERIFIED_MAX = 5_000;
const verified = new WeakMap<SigningKeys, Lru<JWTPayload>>();

/** Whether a verified token's `exp` (required) and `nbf` hold at `now`, with the leeway. */
export function timely(payload: JWTPayload, now: Date): boolean {
  const at = now.getTime() / 1000;
  return (
    payload.exp !== undefined &&
    at < payload.exp + CLOCK_TOLERANCE_SECONDS &&
    (payload.nbf === undefined || at >= payload.nbf - CLOCK_TOLERANCE_SECONDS)
  );
}

export interface VerifyOptions {
  kind: TokenKind;
  issuer: string;
  /** Accepted audiences; unchecked when absent (the caller checks them against registered clients). */
  audience?: string | string[];
  now: Date;
}

/** The claims of a token this server issued, or InvalidJwtError saying why it is refused. */
export async function verifyJwt(token: string, keys: SigningKeys, options: VerifyOptions): Promise<JWTPayload> {
  let cache = verified.get(keys);
  if (!cache) verified.set(keys, (cache = new Lru(VERIFIED_MAX)));
  const key = `${options.kind}\n${options.issuer}\n${JSON.stringify(options.audience ?? null)}\n${token}`;
  const known = cache.get(key);
  if (known && timely(known, options.now)) return known;
  const payload = await verifyAfresh(token, keys, options);
  cache.set(key, payload);
  return payload;
}

async function verifyAfresh(token: string, keys: SigningKeys, options: VerifyOptions): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, keySetOf(keys), {
      algorithms: [SIGNING_ALG],
      typ: TOKEN_TYP[options.kind],
      issuer: options.issuer,
      audience: options.audience,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: options.now,
      requiredClaims: ['exp', 'iat', 'sub'],
    });
    return payload;
  } catch (err) {
    if (err instanceof errors.JWTExpired) throw new InvalidJwtError('the token has expired');
    if (err instanceof errors.JWTClaimValidationFailed)
      throw new InvalidJwtError(`the token's ${err.claim} claim is not accepted`);
    if (err instanceof errors.JOSEAlgNotAllowed) throw new InvalidJwtError('the token is not signed with RS256');
    if (err instanceof errors.JOSEError) throw new InvalidJwtError('the token is not a valid token of this server');
    throw err;
  }
}
