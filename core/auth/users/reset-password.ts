import type { KubeObject } from '../../cluster/objects.ts';
import type { Cluster } from '../../cluster/port.ts';
import { sessionKind, type Session } from '../../resources/session/schema.ts';
import { userKind, type User } from '../../resources/user/schema.ts';
import { secretKind, secretValue, type Secret } from '../../resources/secret.ts';
import { randomSecret } from '../digest.ts';
import { verifyPassword } from '../password.ts';
import { passwordSecretName, PASSWORD_HASH_KEY, writePasswordHash } from './first-admin.ts';
import { UserDirectory } from './directory.ts';

/** A reset that cannot be done (no store, no such user, a user without a password): the command prints it alone. */
export class PasswordResetError extends Error {}

export interface PasswordReset {
  username: string;
  /** The new password: only its hash is stored, so the caller shows it once. */
  password: string;
  /** How many sign-in sessions of the user ended with the reset. */
  sessionsEnded: number;
}

/**
 * Gives a local user a new drawn password (the recovery of a forgotten first admin's), and ends the user's sign-in
 * sessions (login page cookies, `/credentials/basic` tokens): whoever held the old password may have started them.
 * OAuth2 tokens already issued stay valid until they expire (docs/authorization.md, "Recovering the first admin").
 */
export async function resetPassword(
  cluster: Cluster,
  namespace: string,
  username: string,
  password = randomSecret(18),
): Promise<PasswordReset> {
  const user = (await new UserDirectory(cluster, namespace).find('username', username)) as
    (User & KubeObject) | undefined;
  if (!user) throw new PasswordResetError(`no user "${username}" in this store`);
  if (user.spec.externalAuthOnly)
    throw new PasswordResetError(`"${username}" signs in only through an external provider: it has no password`);
  const ref = user.spec.passwordSecretRef ?? { name: passwordSecretName(username), key: PASSWORD_HASH_KEY };
  await writePasswordHash(cluster, namespace, ref, password);
  if (!user.spec.passwordSecretRef)
    await cluster.update(userKind, { ...user, spec: { ...user.spec, passwordSecretRef: ref } });

  const { items } = await cluster.list<Session & KubeObject>(sessionKind, { namespace });
  const sessions = items.filter((session) => session.spec.principalName === username);
  for (const session of sessions) await cluster.delete(sessionKind, session.metadata.name, namespace);
  return { username, password, sessionsEnded: sessions.length };
}

/** The key, in the user's password Secret, of the hash of the chart's password that was last taken as the password. */
export const ADOPTED_PASSWORD_KEY = 'adopted-password-hash';

/**
 * Kubernetes mode's recovery: a changed chart Secret sets the first admin's password, as `resetPassword` sets one.
 * Only a change counts: the hash of the password last taken from the Secret is kept beside the user's own, so a
 * password the admin set since (through `resetPassword`, for one) survives restarts while the Secret stays as it
 * was. Undefined when the password was left as it is.
 */
export async function adoptPassword(
  cluster: Cluster,
  namespace: string,
  username: string,
  password: string,
): Promise<PasswordReset | undefined> {
  const user = await new UserDirectory(cluster, namespace).find('username', username);
  if (!user || user.spec.externalAuthOnly) return undefined;
  const ref = user.spec.passwordSecretRef ?? { name: passwordSecretName(username), key: PASSWORD_HASH_KEY };
  const secret = await cluster.get<Secret & KubeObject>(secretKind, ref.name, namespace);
  const matches = async (key: string) => {
    const stored = secret ? secretValue(secret, key) : undefined;
    return stored !== undefined && (await verifyPassword(password, stored));
  };
  if (await matches(ADOPTED_PASSWORD_KEY)) return undefined;
  // A Secret never adopted that still signs the user in (the password the admin was created with) changes nothing.
  const reset = (await matches(ref.key)) ? undefined : await resetPassword(cluster, namespace, username, password);
  await writePasswordHash(cluster, namespace, { name: ref.name, key: ADOPTED_PASSWORD_KEY }, password);
  return reset;
}
