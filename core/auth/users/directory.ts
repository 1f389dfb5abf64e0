import { createHmac, randomBytes } from 'node:crypto';
import type { KubeObject } from '../../cluster/objects.ts';
import { Lru } from '../../cache/lru.ts';
import type { Cluster } from '../../cluster/port.ts';
import { secretKind, secretValue, type Secret } from '../../resources/secret.ts';
import { userKind, type User } from '../../resources/user/schema.ts';
import { decoyHash, DEFAULT_COST, parseHash, verifyPassword, type ScryptCost } from '../password.ts';
import { SignInThrottle } from './sign-in-throttle.ts';

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

/** What a password sign-in came to: the user, a refusal (neither member), or a wait the throttle asks for. */
export type SignInOutcome = { user: User; throttledForMs?: undefined } | { user?: undefined; throttledForMs?: number };

/** The Secret a refusal without a password to check reads in place of a user's: a name no Secret of Stratus has. */
const NO_PASSWORD = { name: 'stratus-no-password' };

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
  readonly #throttle: SignInThrottle;
  /** The cost of the last stored hash read: the decoy's, so that a refusal costs what the installation's hashes do. */
  #decoyCost: ScryptCost = DEFAULT_COST;

  constructor(cluster: Cluster, namespace: string, throttle = new SignInThrottle()) {
    this.#cluster = cluster;
    this.#namespace = namespace;
    this.#throttle = throttle;
  }

  async find(claim: MappingClaim, value: string): Promise<User | undefined> {
    if (claim === 'username' && value.length <= 253 && NAME.test(value)) {
      const named = await this.#cluster.get<User & KubeObject>(userKind, value, this.#namespace);
      if (named?.spec.username === value) return named;
    }
    return this.#listed(claim, value);
  }

  /** The one user whose claim is `value`, from a list of every user; a value claimed twice matches no one. */
  async #listed(claim: MappingClaim, value: string): Promise<User | undefined> {
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
   * A password sign-in of `username` from the client `address`: the user, a refusal (unknown user, wrong password,
   * or an account that may not sign in: disabled, expired, external only), or how long the client must wait first
   * (the sign-in throttle). Every refusal costs one scrypt of the installation's cost, as a wrong password does, so
   * the time of an answer does not tell which usernames exist; a right password may be answered from the
   * remembered checks.
   */
  async signIn(username: string, password: string, now: Date, address: string): Promise<SignInOutcome> {
    const admission = this.#throttle.admit(username, address);
    if (admission.retryAfterMs !== undefined) return { throttledForMs: admission.retryAfterMs };
    let user: User | undefined;
    try {
      user = await this.#passwordUser(username, password, now);
    } finally {
      admission.attempt.finish(user !== undefined);
    }
    return user ? { user } : {};
  }

  /**
   * Every attempt makes the same reads, one list of the users and one Secret (in Kubernetes, requests to the API
   * server), and checks one hash, so that an unknown user or an account that may not sign in costs what a known
   * user's wrong password does. `find` would answer a known user from a get and list only on a miss.
   */
  async #passwordUser(username: string, password: string, now: Date): Promise<User | undefined> {
    const listed = await this.#listed('username', username);
    const user = username ? listed : undefined;
    const ref =
      user && accountRefusal(user, now) === undefined && !user.spec.externalAuthOnly
        ? user.spec.passwordSecretRef
        : undefined;
    const secret = await this.#cluster.get<Secret & KubeObject>(secretKind, (ref ?? NO_PASSWORD).name, this.#namespace);
    const stored = ref && secret ? secretValue(secret, ref.key) : undefined;
    const parsed = stored ? parseHash(stored) : undefined;
    if (user && stored && parsed) {
      this.#decoyCost = parsed.cost;
      return (await this.#checkPassword(user, stored, password, now.getTime())) ? user : undefined;
    }
    await verifyPassword(password, decoyHash(this.#decoyCost));
    return undefined;
  }

  /** Whether `password` hashes to `stored`, the user's hash; a match is remembered for a minute. */
  async #checkPassword(user: User, stored: string, password: string, now: number): Promise<boolean> {
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
