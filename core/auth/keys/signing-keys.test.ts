import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint } from 'jose';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openEmbeddedCluster } from '../../cluster/embedded/index.ts';
import { ConfigError } from '../../config/index.ts';
import { secretKind } from '../../resources/secret.ts';
import { ephemeralSigningKey, SIGNING_KEY_SECRET } from './ephemeral.ts';
import { resolveSigningKeys } from './resolve.ts';
import { TOKEN_KEY_SECRET, tokenMacKey } from './token-key.ts';

async function cluster() {
  const dir = await mkdtemp(join(tmpdir(), 'stratus-keys-'));
  const opened = await openEmbeddedCluster({ dataDir: dir });
  onTestFinished(async () => {
    await opened.close();
    await rm(dir, { recursive: true, force: true });
  });
  return opened;
}

const noKeystore = { path: null, alias: null, password: null, keyPassword: null, generateIfMissing: true };

describe('signing keys', () => {
  it('creates the ephemeral key once: replicas starting together all sign with the winner', async () => {
    const store = await cluster();
    const keys = await Promise.all(Array.from({ length: 4 }, () => ephemeralSigningKey(store, 'default')));
    const moduli = new Set(keys.map((k) => k.export({ format: 'jwk' }).n));
    expect(moduli.size).toBe(1);
    expect(keys[0]!.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const again = await ephemeralSigningKey(store, 'default');
    expect(again.export({ format: 'jwk' }).n).toBe([...moduli][0]);
    expect((await store.list(secretKind)).items.map((s) => s.metadata.name)).toEqual([SIGNING_KEY_SECRET]);
  });

  it('creates the refresh-token MAC key once, apart from the signing key: replicas starting together share it', async () => {
    const store = await cluster();
    const keys = await Promise.all(Array.from({ length: 4 }, () => tokenMacKey(store, 'default')));
    expect(new Set(keys.map((k) => k.export().toString('hex'))).size).toBe(1);
    expect(keys[0]!.symmetricKeySize).toBe(32);
    expect((await tokenMacKey(store, 'default')).equals(keys[0]!)).toBe(true);
    await ephemeralSigningKey(store, 'default');
    expect((await store.list(secretKind)).items.map((s) => s.metadata.name).sort()).toEqual([
      SIGNING_KEY_SECRET,
      TOKEN_KEY_SECRET,
    ]);
  });

  it('publishes the active key as an RS256 signing JWK named by its RFC 7638 thumbprint', async () => {
    const keys = await resolveSigningKeys(noKeystore, await cluster(), 'default');
    expect(keys.jwks.keys).toHaveLength(1);
    const [jwk] = keys.jwks.keys;
    expect(jwk).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256', kid: keys.kid, e: 'AQAB' });
    expect(await calculateJwkThumbprint({ kty: 'RSA', n: jwk!.n, e: jwk!.e })).toBe(keys.kid);
    expect(Object.keys(jwk!)).not.toContain('d');
    expect(keys.source).toBe(`ephemeral RSA-2048 key in Secret default/${SIGNING_KEY_SECRET}`);
  });

  it('stops startup when there is no keystore and no key may be generated', async () => {
    const refused = resolveSigningKeys({ ...noKeystore, generateIfMissing: false }, await cluster(), 'default');
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(/needs a signing key: set oauth2.server.jwt.keystore.path/);
  });

  it('stops startup with the keystore problem as a configuration error', async () => {
    const settings = { ...noKeystore, path: '/nonexistent/keystore.p12', alias: 'signer', password: 'pw' };
    const refused = resolveSigningKeys(settings, await cluster(), 'default');
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(
      'oauth2.server.jwt.keystore: keystore /nonexistent/keystore.p12: cannot be read (ENOENT)',
    );
  });
});
