import type { JWTPayload } from 'jose';
import { isApiError } from '../../cluster/errors.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import type { Cluster } from '../../cluster/port.ts';
import { userKind, type User } from '../../resources/user/schema.ts';
import { accountRefusal, type UserDirectory } from '../users/directory.ts';

/**
 * Which local account an external identity signs in as (spec 2): the provider's `mapping_claim` (`email` or
 * `username`; any other value refuses every token with 'Invalid mapping claim') taken from the verified claims and
 * compared, case-sensitive, with the users' `openId`. Only accounts flagged for external sign-in
 * (`externalAuthOnly`) count, and they must not be disabled or expired. Without linked accounts an identity names
 * one account; with `linked_accounts.enabled` it may name several and the one that signed in most recently
 * (`status.lastLogin`, written by `recordSignIn` at every sign-in through a provider) is chosen.
 */
export const INVALID_MAPPING_CLAIM = 'Invalid mapping claim';
const MAPPING_CLAIMS = ['email', 'username'];

export type UserMapping = { user: User & KubeObject; refusal?: undefined } | { user?: undefined; refusal: string };

export async function mapIdentity(
  users: Pick<UserDirectory, 'withOpenId'>,
  mappingClaim: string,
  claims: JWTPayload,
  options: { linkedAccounts: boolean; now: Date },
): Promise<UserMapping> {
  if (!MAPPING_CLAIMS.includes(mappingClaim)) return { refusal: INVALID_MAPPING_CLAIM };
  const value = claims[mappingClaim];
  if (typeof value !== 'string' || value === '') return { refusal: `the token has no ${mappingClaim} claim` };
  const accounts = (await users.withOpenId(value)).filter((u) => u.spec.externalAuthOnly) as (User & KubeObject)[];
  if (accounts.length === 0) return { refusal: 'no account flagged for external sign-in has this identity' };
  if (accounts.length > 1 && !options.linkedAccounts)
    return { refusal: 'several accounts have this identity and linked accounts are off' };
  const byRecency = accounts.sort(
    (a, b) =>
      (b.status?.lastLogin ?? '').localeCompare(a.status?.lastLogin ?? '') ||
      a.metadata.name.localeCompare(b.metadata.name),
  );
  const user = byRecency.find((u) => accountRefusal(u, options.now) === undefined);
  return user ? { user } : { refusal: accountRefusal(byRecency[0]!, options.now)! };
}

const MAX_ATTEMPTS = 5;

/**
 * Records that `user` signed in through an external provider now (`status.lastLogin`), which decides between
 * linked accounts. Compare-and-swap on the user's resourceVersion, re-read on a conflict; a user deleted meanwhile
 * is left alone.
 */
export async function recordSignIn(cluster: Cluster, user: User & KubeObject, now: Date): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const current = await cluster.get<User & KubeObject>(userKind, user.metadata.name, user.metadata.namespace);
    if (!current) return;
    try {
      await cluster.updateStatus<User & KubeObject>(userKind, {
        ...current,
        status: { ...current.status, lastLogin: now.toISOString() },
      });
      return;
    } catch (err) {
      if (!isApiError(err, 'Conflict') || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}
