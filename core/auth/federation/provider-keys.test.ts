import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors, exportJWK, generateKeyPair, jwtVerify, SignJWT, type JWK } from 'jose';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ProviderKeys, ProviderKeySets, ProviderKeysUnavailable } from './provider-keys.ts';

interface SigningKey {
  kid: string;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  jwk: JWK;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** A provider's JWKS endpoint serving whatever `published` holds (or a status), counting its requests. */
async function jwksServer() {
  const state = { published: [] as JWK[], status: 200, requests: 0 };
  const server = createServer((_req, res) => {
    state.requests++;
    res.writeHead(state.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: state.published }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  onTestFinished(() => new Promise<void>((done) => server.close(() => done())));
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/certs` };
}

function token(key: SigningKey, kid = key.kid) {
  return new SignJWT({ sub: 'ada' })
    .setProtectedHeader({ alg: 'RS256', kid })
    .setExpirationTime('5m')
    .sign(key.privateKey);
}

/** A clock the test moves. */
function clock() {
  const state = { now: 1_000_000 };
  return { state, now: () => state.now };
}

describe('provider keys', () => {
  it('fetches nothing until first used, then serves from the cache', async () => {
    const { state, url } = await jwksServer();
    const first = await signingKey('k1');
    state.published = [first.jwk];
    const keys = new ProviderKeys(url);
    expect(state.requests).toBe(0);
    for (let i = 0; i < 3; i++) await jwtVerify(await token(first), keys.resolve);
    expect(state.requests).toBe(1);
  });

  it('follows a key rotation without a restart: an unknown kid refetches the set', async () => {
    const { state, url } = await jwksServer();
    const [first, second] = await Promise.all([signingKey('k1'), signingKey('k2')]);
    state.published = [first.jwk];
    const time = clock();
    const keys = new ProviderKeys(url, { now: time.now });
    await jwtVerify(await token(first), keys.resolve);
    state.published = [second.jwk];
    const { payload } = await jwtVerify(await token(second), keys.resolve);
    expect(payload.sub).toBe('ada');
    expect(state.requests).toBe(2);
  });

  it('refetches for unknown kids at most once per cooldown, so forged kids cannot hammer the provider', async () => {
    const { state, url } = await jwksServer();
    const [first, second] = await Promise.all([signingKey('k1'), signingKey('k2')]);
    state.published = [first.jwk];
    const time = clock();
    const keys = new ProviderKeys(url, { now: time.now, cooldownMs: 30_000 });
    await jwtVerify(await token(first), keys.resolve);
    const forged = await Promise.all(Array.from({ length: 20 }, (_, i) => token(first, `forged-${i}`)));
    const outcomes = await Promise.allSettled(forged.map((t) => jwtVerify(t, keys.resolve)));
    expect(outcomes.every((o) => o.status === 'rejected' && o.reason instanceof errors.JWKSNoMatchingKey)).toBe(true);
    expect(state.requests).toBe(2);
    // Within the cooldown even a genuine new key waits; after it, the set is fetched again.
    state.published = [first.jwk, second.jwk];
    time.state.now += 10_000;
    await expect(jwtVerify(await token(second), keys.resolve)).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
    expect(state.requests).toBe(2);
    time.state.now += 20_000;
    await jwtVerify(await token(second), keys.resolve);
    expect(state.requests).toBe(3);
  });

  it('fetches the set again after its max age, so a withdrawn key stops being accepted', async () => {
    const { state, url } = await jwksServer();
    const [first, second] = await Promise.all([signingKey('k1'), signingKey('k2')]);
    state.published = [first.jwk, second.jwk];
    const time = clock();
    const keys = new ProviderKeys(url, { now: time.now, maxAgeMs: 600_000 });
    await jwtVerify(await token(first), keys.resolve);
    state.published = [second.jwk];
    time.state.now += 600_000;
    await expect(jwtVerify(await token(first), keys.resolve)).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
    // One fetch for the age, one for the kid it no longer finds.
    expect(state.requests).toBe(3);
  });

  it('says when the keys cannot be fetched, and keeps a set it has when a later fetch fails', async () => {
    const { state, url } = await jwksServer();
    const first = await signingKey('k1');
    state.published = [first.jwk];
    state.status = 503;
    const time = clock();
    const keys = new ProviderKeys(url, { now: time.now, maxAgeMs: 600_000, cooldownMs: 30_000 });
    await expect(jwtVerify(await token(first), keys.resolve)).rejects.toBeInstanceOf(ProviderKeysUnavailable);
    state.status = 200;
    await jwtVerify(await token(first), keys.resolve);
    state.status = 503;
    time.state.now += 600_000;
    await jwtVerify(await token(first), keys.resolve);
    const failed = state.requests;
    // The failed refresh is retried after a cooldown, not on every token.
    await jwtVerify(await token(first), keys.resolve);
    expect(state.requests).toBe(failed);
    time.state.now += 30_000;
    await jwtVerify(await token(first), keys.resolve);
    expect(state.requests).toBe(failed + 1);
  });

  it('refuses a JWK Set holding private keys', async () => {
    const { state, url } = await jwksServer();
    const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    const key: SigningKey = { kid: 'p', privateKey, jwk: { ...(await exportJWK(privateKey)), kid: 'p' } };
    state.published = [key.jwk];
    await expect(jwtVerify(await token(key), new ProviderKeys(url).resolve)).rejects.toBeInstanceOf(errors.JOSEError);
  });

  it('shares one set per jwk_uri', () => {
    const sets = new ProviderKeySets();
    const a = sets.of({ jwkUri: 'https://id.example.org/certs' });
    expect(sets.of({ jwkUri: 'https://id.example.org/certs' })).toBe(a);
    expect(sets.of({ jwkUri: 'https://other.example.org/certs' })).not.toBe(a);
  });
});
