import { describe, expect, it } from 'vitest';
import { addUser, authContext, NAMESPACE } from '../../../test/support/auth-context.ts';
import { Sessions } from '../records/sessions.ts';
import { UserDirectory } from './directory.ts';
import { adoptPassword, PasswordResetError, resetPassword } from './reset-password.ts';

describe('password reset', () => {
  it('draws a password that signs the user in, refuses the old one and ends only that user’s sessions', async () => {
    const { cluster } = await authContext();
    await addUser(cluster, 'admin', 'old pw');
    await addUser(cluster, 'ada', 'pw');
    const sessions = new Sessions(cluster, NAMESPACE);
    const now = new Date();
    const admins = await sessions.start('admin', now);
    const adas = await sessions.start('ada', now);

    const reset = await resetPassword(cluster, NAMESPACE, 'admin');
    expect(reset).toMatchObject({ username: 'admin', sessionsEnded: 1 });
    // A fresh directory, so that no remembered check answers.
    const users = new UserDirectory(cluster, NAMESPACE);
    expect(await users.signIn('admin', reset.password, now)).toBeDefined();
    expect(await users.signIn('admin', 'old pw', now)).toBeUndefined();
    expect(await sessions.find(admins.cookie, now)).toBeUndefined();
    expect(await sessions.find(adas.cookie, now)).toBeDefined();
  });

  it('refuses an unknown user and one who signs in only through an external provider', async () => {
    const { cluster } = await authContext();
    await addUser(cluster, 'linus', undefined, { externalAuthOnly: true });
    await expect(resetPassword(cluster, NAMESPACE, 'nobody')).rejects.toThrow(PasswordResetError);
    await expect(resetPassword(cluster, NAMESPACE, 'linus')).rejects.toThrow(/only through an external provider/);
  });

  it('adopts a changed Secret password (Kubernetes recovery) and leaves a matching one alone', async () => {
    const { cluster } = await authContext();
    await addUser(cluster, 'admin', 'chart pw');
    const now = new Date();
    expect(await adoptPassword(cluster, NAMESPACE, 'admin', 'chart pw')).toBeUndefined();
    expect(await adoptPassword(cluster, NAMESPACE, 'admin', 'rotated pw')).toMatchObject({ username: 'admin' });
    const users = new UserDirectory(cluster, NAMESPACE);
    expect(await users.signIn('admin', 'rotated pw', now)).toBeDefined();
    expect(await users.signIn('admin', 'chart pw', now)).toBeUndefined();
  });
});
