import { createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';

/** The one signature algorithm of issued tokens (spec 2: RSA only); verification allows nothing else. */
export const SIGNING_ALG = 'RS256';

export interface PublishedKey extends JWK {
  kty: 'RSA';
  kid: string;
  use: 'sig';
  alg: typeof SIGNING_ALG;
  n: string;
  e: string;
}

/**
 * The keys of the authorization server: the active private key that signs, and the public keys published at
 * `/oauth2/jwks` (active first, then retired ones), each known by its RFC 7638 thumbprint (`kid`).
 */
export interface SigningKeys {
  kid: string;
  privateKey: KeyObject;
  jwks: { keys: PublishedKey[] };
  /** Where the key came from, for the startup log: a keystore path and alias, or the ephemeral key's Secret. */
  source: string;
}

async function published(key: KeyObject): Promise<PublishedKey> {
  const { n, e } = createPublicKey(key).export({ format: 'jwk' });
  const jwk = { kty: 'RSA' as const, n: n!, e: e! };
  return { ...jwk, kid: await calculateJwkThumbprint(jwk, 'sha256'), use: 'sig', alg: SIGNING_ALG };
}

export async function signingKeys(privateKey: KeyObject, retired: KeyObject[], source: string): Promise<SigningKeys> {
  const active = await published(privateKey);
  const others = await Promise.all(retired.map(published));
  const keys = [
    active,
    ...others.filter((k, i) => k.kid !== active.kid && others.findIndex((o) => o.kid === k.kid) === i),
  ];
  return { kid: active.kid, privateKey, jwks: { keys }, source };
}
