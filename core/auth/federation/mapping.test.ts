import { describe, expect, it } from 'vitest';
import { addUser, NAMESPACE } from '../../../test/support/auth-context.ts';
import { openTestCluster } from '../../../test/support/auth-app.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import { userKind, type User } from '../../resources/user/schema.ts';
import { UserDirectory } from '../users/directory.ts';
import { INVALID_MAPPING_CLAIM, mapIdentity, recordSignIn } from './mapping.ts';

const NOW = new Date('2026-06-01T12:00:00Z');

async function setup() {
  const cluster = await openTestCluster();
  const users = new UserDirectory(cluster, NAMESPACE);
  const map = (claims: Record<string, unknown>, mappingClaim = 'email', linkedAccounts = false) =>
    mapIdentity(users, mappingClaim, claims, { linkedAccounts, now: NOW });
  const user = async (name: string) => (await cluster.get<User & KubeObject>(userKind, name, NAMESPACE))!;
  return { cluster, map, user };
}

describe('mapping an external identity to a local user', () => {
  it('finds the external-only account whose openId equals the mapping claim, case-sensitive', async () => {
    const { cluster, map } = await setup();
    await addUser(cluster, 'ada', undefined, { openId: 'ada@example.org', externalAuthOnly: true });
    await addUser(cluster, 'bob', undefined, { openId: 'bob', externalAuthOnly: true });
    expect((await map({ email: 'ada@example.org' })).user?.spec.username).toBe('ada');
    expect((await map({ username: 'bob' }, 'username')).user?.spec.username).toBe('bob');
    expect(await map({ email: 'Ada@example.org' })).toEqual({
      refusal: 'no account flagged for external sign-in has this identity',
    });
  });

  it.each([
    ['a mapping claim other than email or username', { sub: 'ada@example.org' }, 'sub', INVALID_MAPPING_CLAIM],
    ['a token without the claim', { sub: 'x' }, 'email', 'the token has no email claim'],
    ['a claim that is no string', { email: ['ada@example.org'] }, 'email', 'the token has no email claim'],
    [
      'an identity of no user',
      { email: 'nobody@example.org' },
      'email',
      'no account flagged for external sign-in has this identity',
    ],
    [
      'a user not flagged for external sign-in',
      { email: 'local@example.org' },
      'email',
      'no account flagged for external sign-in has this identity',
    ],
    ['a disabled user', { email: 'off@example.org' }, 'email', 'the account is disabled'],
    ['an expired account', { email: 'old@example.org' }, 'email', 'the account has expired'],
  ])('refuses %s', async (_case, claims, mappingClaim, refusal) => {
    const { cluster, map } = await setup();
    await addUser(cluster, 'ada', undefined, { openId: 'ada@example.org', externalAuthOnly: true });
    await addUser(cluster, 'local', 'pw', { openId: 'local@example.org' });
    await addUser(cluster, 'off', undefined, { openId: 'off@example.org', externalAuthOnly: true, disabled: true });
    await addUser(cluster, 'old', undefined, {
      openId: 'old@example.org',
      externalAuthOnly: true,
      accountExpiry: '2026-01-01T00:00:00Z',
    });
    expect(await map(claims, mappingClaim)).toEqual({ refusal });
  });

  it('refuses an identity of several accounts without linked accounts', async () => {
    const { cluster, map } = await setup();
    await addUser(cluster, 'ada', undefined, { openId: 'ada@example.org', externalAuthOnly: true });
    await addUser(cluster, 'ada-admin', undefined, { openId: 'ada@example.org', externalAuthOnly: true });
    expect(await map({ email: 'ada@example.org' })).toEqual({
      refusal: 'several accounts have this identity and linked accounts are off',
    });
  });

  it('with linked accounts, signs in the account that signed in most recently and may still sign in', async () => {
    const { cluster, map, user } = await setup();
    for (const name of ['ada', 'ada-admin', 'ada-old'])
      await addUser(cluster, name, undefined, { openId: 'ada@example.org', externalAuthOnly: true });
    const linked = (claims: Record<string, unknown>) => map(claims, 'email', true);
    // Never signed in: the first by name, so the choice is stable.
    expect((await linked({ email: 'ada@example.org' })).user?.metadata.name).toBe('ada');
    await recordSignIn(cluster, await user('ada-admin'), new Date('2026-05-01T00:00:00Z'));
    await recordSignIn(cluster, await user('ada'), new Date('2026-04-01T00:00:00Z'));
    expect((await user('ada-admin')).status?.lastLogin).toBe('2026-05-01T00:00:00.000Z');
    expect((await linked({ email: 'ada@example.org' })).user?.metadata.name).toBe('ada-admin');
    await recordSignIn(cluster, await user('ada'), new Date('2026-05-02T00:00:00Z'));
    expect((await linked({ email: 'ada@example.org' })).user?.metadata.name).toBe('ada');
    // The most recent one disabled: the next most recent signs in.
    const ada = await user('ada');
    await cluster.update(userKind, { ...ada, spec: { ...ada.spec, disabled: true } });
    expect((await linked({ email: 'ada@example.org' })).user?.metadata.name).toBe('ada-admin');
  });

  it('records a sign-in on a user changed meanwhile, keeping the rest of its status', async () => {
    const { cluster, user } = await setup();
    await addUser(cluster, 'ada', undefined, { openId: 'ada@example.org', externalAuthOnly: true });
    const stale = await user('ada');
    const fresh = await user('ada');
    await cluster.update(userKind, { ...fresh, spec: { ...fresh.spec, groups: ['g'] } });
    await cluster.updateStatus(userKind, { ...(await user('ada')), status: { observedGeneration: 1 } });
    await recordSignIn(cluster, stale, NOW);
    expect((await user('ada')).status).toEqual({ observedGeneration: 1, lastLogin: NOW.toISOString() });
    expect((await user('ada')).spec.groups).toEqual(['g']);
  });
});
