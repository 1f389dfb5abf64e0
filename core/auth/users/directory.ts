import { createHmac, randomBytes } from 'node:crypto';
import type { KubeObject } from '../../cluster/objects.ts';
import { Lru } from '../../cache/lru.ts';
import type { Cluster } from '../../cluster/port.ts';
import { secretKind, secretValue, type Secret } from '../../resources/secret.ts';
import { userKind, type User } from '../../resources/user/schema.ts';
import { hashPassword, verifyPassword } from '../password.ts';

/** Which claim of a token names the local user (spec 2: only these two). */
export type MappingClaim = 'username' | 'email';

/** A DNS-1123 subdomain: what a username must be to double as the resource's name. */
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** Why a user may not sign in or act now, or undefined when they may (DESIGN.md §5). */
export function accountRefusal(user: User, now: Date): string | undefined {
  if (user.spec.disabled) return 'the account is disabled';
  if (user.spec.accountExpiry && new Date(user.spec.accountExpiry) <= now) return 'the account has expired';
  return undefined;
}

/** The user of a grant or session if they may still act now, else why not (gone, disabled, expired). */
export async function activeUser(
  users: Pick<UserDirectory, 'find'>,
  username: string,
  now: Date,
): Promise<{ user: User; refusal?: undefined } | { user?: undefined; refusal: string }> {
  const user = await users.find('username', username);
  if (!user) return { refusal: 'the user no longer exists' };
  const refusal = accountRefusal(user, now);
  return refusal ? { refusal } : { user };
}

/** A verified password is remembered this long, so HTTP basic on every API call does not cost a scrypt each. */
const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX = 1_000;

/**
 * The one way to find local users (User resources) by username or e-mail, and to check a password against the
 * scrypt hash in the Secret a user's `passwordSecretRef` names. Like the client directory, it tries the resource
 * named like the username first, then any resource with that username; a username claimed twice matches no one.
 */
export class UserDirectory {
  readonly #cluster: Cluster;
  readonly #namespace: string;
  /** Keyed digest of (user, hash, password) -> when it was verified; a changed hash or password misses. */
  readonly #verified = new Lru<number>(VERIFIED_MAX);
  /** A per-process key, so the remembered digests are no fast hash of a password. */
  readonly #cacheKey = randomBytes(32);

  constructor(cluster: Cluster, namespace: string) {
    this.#cluster = cluster;
    this.#namespace = namespace;
  }

  async find(claim: MappingClaim, value: string): Promise<User | undefined> {
    if (claim === 'username' && value.length <= 253 && NAME.test(value)) {
      const named = await this.#cluster.get<User & KubeObject>(userKind, value, this.#namespace);
      if (named?.spec.username === value) return named;
    }
    const { items } = await this.#cluster.list<User & KubeObject>(userKind, { namespace: this.#namespace });
    const matching = items.filter((u) => (claim === 'username' ? u.spec.username : u.spec.email) === value);
    return matching.length === 1 ? matching[0] : undefined;
  }

  /** Every user whose `openId` is `value` (case-sensitive): an external identity's accounts. */
  async withOpenId(value: string): Promise<User[]> {
    const { items } = await this.#cluster.list<User & KubeObject>(userKind, { namespace: this.#namespace });
    return items.filter((u) => u.spec.openId === value);
  }

  /**
   * The user that `username` and `password` sign in, or undefined: unknown user, wrong password, or an account that
   * may not sign in (disabled, expired, external only). Every refusal costs one scrypt, as a wrong password does,
   * so the time of an answer does not tell which usernames exist.
   */
  async signIn(username: string, password: string, now: Date): Promise<User | undefined> {
    const user = username ? await this.find('username', username) : undefined;
    if (user && accountRefusal(user, now) === undefined && (await this.checkPassword(user, password, now.getTime())))
      return user;
    await verifyPassword(password, await this.#decoy());
    return undefined;
  }

  #decoyHash: Promise<string> | undefined;
  #decoy(): Promise<string> {
    this.#decoyHash ??= hashPassword(randomBytes(16).toString('base64url'));
    return this.#decoyHash;
  }

  /** Whether `password` is the user's; false for a user without a password (external sign-in only). */
  async checkPassword(user: User, password: string, now = Date.now()): Promise<boolean> {
    const ref = user.spec.passwordSecretRef;
    if (!ref || user.spec.externalAuthOnly) return false;
    const secret = await this.#cluster.get<Secret & KubeObject>(secretKind, ref.name, this.#namespace);
    const stored = secret && secretValue(secret, ref.key);
    if (!stored) return false;
    const key = createHmac('sha256', this.#cacheKey)
      .update(`${user.spec.username}\n${stored}\n${password}`)
      .digest('base64url');
    const at = this.#verified.get(key);
    if (at !== undefined && now - at < VERIFIED_TTL_MS) return true;
    if (!(await verifyPassword(password, stored))) return false;
    this.#verified.set(key, now);
    return true;
  }
}
