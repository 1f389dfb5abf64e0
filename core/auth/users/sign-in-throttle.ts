import { isIPv6 } from 'node:net';
import { Lru } from '../../cache/lru.ts';
import { hexHash } from '../digest.ts';

/** When a rule starts to delay attempts, and how much: `baseMs` at the threshold, doubling per count, up to `capMs`. */
export interface ThrottleRule {
  threshold: number;
  baseMs: number;
  capMs: number;
}

/**
 * The throttle of password sign-ins (docs/authorization.md#throttling-of-failed-sign-ins). `pair` counts one
 * account's failures from one client address; `account` an account's from every address, and delays only the
 * addresses that have failed on it themselves, timed from their own last failure, so guesses from elsewhere never
 * keep its owner out for longer than its cap; `address` an address's failures on every account (password spraying).
 */
export const SIGN_IN_THROTTLE = {
  pair: { threshold: 5, baseMs: 1_000, capMs: 15 * 60_000 },
  account: { threshold: 20, baseMs: 1_000, capMs: 5 * 60_000 },
  address: { threshold: 50, baseMs: 1_000, capMs: 15 * 60_000 },
} as const satisfies Record<string, ThrottleRule>;

/** A counter with no failure for this long is forgotten: its failures count no more. */
export const FORGET_AFTER_MS = 60 * 60_000;
/** Counters kept per rule; the least recently used go first. */
export const MAX_COUNTERS = 10_000;

interface Counter {
  failures: number;
  /** Attempts being checked now: each counts as a failure until it succeeds, so a burst cannot outrun the rules. */
  pending: number;
  /** The last failure or admitted attempt. */
  lastAt: number;
}

/** An admitted attempt, to be finished once its password was checked. */
export interface SignInAttempt {
  finish(succeeded: boolean): void;
}

export type Admission = { attempt: SignInAttempt; retryAfterMs?: undefined } | { retryAfterMs: number };

/**
 * The client a throttle counts for an address: an IPv4 address as it is (also when IPv4-mapped), an IPv6 address
 * by its /64 prefix, since one IPv6 client usually holds a whole /64 and could otherwise change address per guess.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return address;
  const [head = '', tail] = bare.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  // An embedded IPv4 address in the last place spans two groups.
  const width = (parts: string[]) => parts.length + (parts.at(-1)?.includes('.') ? 1 : 0);
  const front = groups(head);
  const back = groups(tail);
  const all =
    tail === undefined ? front : [...front, ...Array<string>(8 - width(front) - width(back)).fill('0'), ...back];
  return `${all
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/** How long an attempt must wait after a counter's last event under `rule`; 0 below its threshold. */
function waitMs(rule: ThrottleRule, counter: Counter | undefined): number {
  const count = counter ? counter.failures + counter.pending : 0;
  if (count < rule.threshold) return 0;
  return Math.min(rule.baseMs * 2 ** (count - rule.threshold), rule.capMs);
}

/**
 * Counters of failed sign-ins in this process's memory (docs/adr/0012): bounded, so a flood of made-up usernames
 * costs memory no more than MAX_COUNTERS entries per rule. Usernames are counted whether or not they exist, so the
 * throttle tells nobody which do; they are kept as digests, so a long one costs no more than a short one.
 */
export class SignInThrottle {
  readonly #pairs = new Lru<Counter>(MAX_COUNTERS);
  readonly #accounts = new Lru<Counter>(MAX_COUNTERS);
  readonly #addresses = new Lru<Counter>(MAX_COUNTERS);
  readonly #clock: () => number;

  constructor(clock: () => number = Date.now) {
    this.#clock = clock;
  }

  /** Admits an attempt of `username` from `address`, or says how long it must wait. */
  admit(username: string, address: string): Admission {
    const now = this.#clock();
    const account = hexHash(username);
    const client = addressKey(address);
    const keys = { pair: `${account}\n${client}`, account, address: client };
    const pair = this.#current(this.#pairs, keys.pair, now);
    const accountCounter = this.#current(this.#accounts, keys.account, now);
    const addressCounter = this.#current(this.#addresses, keys.address, now);
    const allowedAt = Math.max(
      pair
        ? pair.lastAt + Math.max(waitMs(SIGN_IN_THROTTLE.pair, pair), waitMs(SIGN_IN_THROTTLE.account, accountCounter))
        : 0,
      addressCounter ? addressCounter.lastAt + waitMs(SIGN_IN_THROTTLE.address, addressCounter) : 0,
    );
    if (allowedAt > now) return { retryAfterMs: allowedAt - now };
    for (const [lru, key] of this.#tables(keys)) {
      const counter = lru.get(key) ?? { failures: 0, pending: 0, lastAt: now };
      counter.pending += 1;
      counter.lastAt = now;
      lru.set(key, counter);
    }
    let finished = false;
    return {
      attempt: {
        finish: (succeeded) => {
          if (finished) return;
          finished = true;
          this.#finish(keys, succeeded);
        },
      },
    };
  }

  #finish(keys: { pair: string; account: string; address: string }, succeeded: boolean): void {
    const now = this.#clock();
    for (const [lru, key, rule] of this.#tables(keys)) {
      const counter = lru.get(key) ?? { failures: 0, pending: 1, lastAt: now };
      counter.pending = Math.max(0, counter.pending - 1);
      if (!succeeded) {
        counter.failures += 1;
        counter.lastAt = now;
      } else if (rule === 'pair') counter.failures = 0;
      if (counter.failures === 0 && counter.pending === 0) lru.delete(key);
      else lru.set(key, counter);
    }
  }

  #tables(keys: { pair: string; account: string; address: string }): [Lru<Counter>, string, keyof typeof keys][] {
    return [
      [this.#pairs, keys.pair, 'pair'],
      [this.#accounts, keys.account, 'account'],
      [this.#addresses, keys.address, 'address'],
    ];
  }

  /** The counter of `key`, unless it is forgotten by now. */
  #current(lru: Lru<Counter>, key: string, now: number): Counter | undefined {
    const counter = lru.get(key);
    if (counter && counter.pending === 0 && now - counter.lastAt >= FORGET_AFTER_MS) {
      lru.delete(key);
      return undefined;
    }
    return counter;
  }
}
