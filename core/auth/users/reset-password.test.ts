import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../cluster/port.ts';
import { addUser, authContext, NAMESPACE } from '../../../test/support/auth-context.ts';
import { Sessions } from '../store/sessions.ts';
import { UserDirectory } from './directory.ts';
import { adoptPassword, PasswordResetError, resetPassword } from './reset-password.ts';

/** Whether the password signs the user in, asked of a fresh directory so that no remembered check answers. */
async function signsIn(cluster: Cluster, username: string, password: string): Promise<boolean> {
  const outcome = await new UserDirectory(cluster, NAMESPACE).signIn(username, password, new Date(), '192.0.2.1');
  return outcome.user !== undefined;
}

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
    expect(await signsIn(cluster, 'admin', reset.password)).toBe(true);
    expect(await signsIn(cluster, 'admin', 'old pw')).toBe(false);
    expect(await sessions.find(admins.cookie, now)).toBeUndefined();
    expect(await sessions.find(adas.cookie, now)).toBeDefined();
  });

  it('refuses an unknown user and one who signs in only through an external provider', async () => {
    const { cluster } = await authContext();
    await addUser(cluster, 'linus', undefined, { externalAuthOnly: true });
    await expect(resetPassword(cluster, NAMESPACE, 'nobody')).rejects.toThrow(PasswordResetError);
    await expect(resetPassword(cluster, NAMESPACE, 'linus')).rejects.toThrow(/only through an external provider/);
  });

  it("adopts the password of the chart's Secret only when it changed, and keeps one set since while it did not", async () => {
    const { cluster } = await authContext();
    await addUser(cluster, 'admin', 'chart pw');
    expect(await adoptPassword(cluster, NAMESPACE, 'admin', 'chart pw')).toBeUndefined();
    expect(await adoptPassword(cluster, NAMESPACE, 'admin', 'rotated pw')).toMatchObject({ username: 'admin' });
    expect(await signsIn(cluster, 'admin', 'rotated pw')).toBe(true);
    expect(await signsIn(cluster, 'admin', 'chart pw')).toBe(false);

    // The admin sets another password; a restart with the Secret as it was leaves it.
    const own = await resetPassword(cluster, NAMESPACE, 'admin');
    expect(await adoptPassword(cluster, NAMESPACE, 'admin', 'rotated pw')).toBeUndefined();
    expect(await signsIn(cluster, 'admin', own.password)).toBe(true);
    expect(await signsIn(cluster, 'admin', 'rotated pw')).toBe(false);
  });
});
