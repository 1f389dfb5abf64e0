import { describe, expect, it } from 'vitest';
import { addUser, authContext, NAMESPACE, TEST_SCRYPT_COST } from '../../../test/support/auth-context.ts';
import type { KindRef } from '../../cluster/objects.ts';
import { secretKind } from '../../resources/secret.ts';
import { hashPassword } from '../password.ts';
import { UserDirectory } from './directory.ts';

const ADDRESS = '192.0.2.1';

describe('user directory', () => {
  it('signs in a user with the right password only, and no account that may not sign in', async () => {
    const { context, cluster } = await authContext();
    await addUser(cluster, 'ada', 'pw', { email: 'ada@example.org' });
    await addUser(cluster, 'grace', 'pw', { disabled: true });
    await addUser(cluster, 'linus', 'pw', { externalAuthOnly: true });
    await addUser(cluster, 'old', 'pw', { accountExpiry: '2020-01-01T00:00:00Z' });
    const now = new Date();
    expect((await context.users.signIn('ada', 'pw', now, ADDRESS)).user?.spec.username).toBe('ada');
    for (const [username, password] of [
      ['ada', 'PW'],
      ['nobody', 'pw'],
      ['grace', 'pw'],
      ['linus', 'pw'],
      ['old', 'pw'],
      ['', ''],
    ])
      expect(await context.users.signIn(username!, password!, now, ADDRESS), username).toEqual({});
  });

  it('finds users by username or e-mail, also when the resource is named otherwise', async () => {
    const { context, cluster } = await authContext();
    await addUser(cluster, 'Ada.Lovelace', undefined, { email: 'ada@example.org' });
    expect((await context.users.find('username', 'Ada.Lovelace'))?.spec.email).toBe('ada@example.org');
    expect((await context.users.find('email', 'ada@example.org'))?.spec.username).toBe('Ada.Lovelace');
    expect(await context.users.find('username', 'ada.lovelace')).toBeUndefined();
  });

  it('accepts a new password at once after its hash changed, and the old one no more, past the remembered check', async () => {
    const { context, cluster } = await authContext();
    await addUser(cluster, 'ada', 'old pw');
    const now = new Date();
    expect((await context.users.signIn('ada', 'old pw', now, ADDRESS)).user).toBeDefined();
    const secret = (await cluster.get(secretKind, 'ada-password', NAMESPACE))!;
    await cluster.update(secretKind, {
      ...secret,
      data: { hash: Buffer.from(await hashPassword('new pw', TEST_SCRYPT_COST)).toString('base64') },
    });
    expect((await context.users.signIn('ada', 'old pw', now, ADDRESS)).user).toBeUndefined();
    expect((await context.users.signIn('ada', 'new pw', now, ADDRESS)).user).toBeDefined();
  });

  it('makes the same reads for every refused sign-in as for a known user’s wrong password: one user list, one Secret', async () => {
    const { cluster } = await authContext();
    await addUser(cluster, 'ada', 'pw');
    await addUser(cluster, 'grace', 'pw', { disabled: true });
    await addUser(cluster, 'linus', 'pw', { externalAuthOnly: true });
    let reads: string[] = [];
    const counting = new Proxy(cluster, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property);
        if (typeof value !== 'function') return value;
        if (property !== 'get' && property !== 'list') return (value as (...args: unknown[]) => unknown).bind(target);
        return (kind: KindRef, ...rest: unknown[]) => {
          reads.push(`${String(property)} ${kind.kind}`);
          return (value as (...args: unknown[]) => unknown).call(target, kind, ...rest);
        };
      },
    });
    const users = new UserDirectory(counting, NAMESPACE);
    for (const username of ['ada', 'nobody', 'grace', 'linus', '']) {
      reads = [];
      expect(await users.signIn(username, 'wrong', new Date(), ADDRESS), username).toEqual({});
      expect(reads, username).toEqual(['list User', 'get Secret']);
    }
  });
});
