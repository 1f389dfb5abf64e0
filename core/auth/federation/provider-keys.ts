import { createLocalJWKSet, errors, type FlattenedJWSInput, type JSONWebKeySet, type JWSHeaderParameters } from 'jose';

/**
 * An external provider's signing keys (its `jwk_uri`), fetched on first use and cached, so a provider that is
 * never used is never called and a restart is not needed when it rotates its keys (spec 2). A token naming a key
 * the cached set lacks makes one refetch; further refetches for unknown keys wait out a cooldown, so a flood of
 * forged `kid`s costs the provider one request per cooldown rather than one per token. The cooldown counts from the
 * last refetch for an unknown key, not from the first fetch: a rotation right after startup is still followed.
 * After `maxAgeMs` the set is fetched again on the next use, so a key the provider withdrew stops being accepted;
 * if that fetch fails the old set stays in use (a provider briefly down does not sign everyone out).
 */
export interface ProviderKeysOptions {
  /** Between two refetches caused by unknown keys (default 30 s). */
  cooldownMs?: number;
  /** Age after which the set is fetched again on the next use (default 10 minutes). */
  maxAgeMs?: number;
  /** Of one fetch (default 5 s). */
  timeoutMs?: number;
  now?: () => number;
}

/** The keys could not be fetched (unreachable, not 200, not a JWK Set) and no earlier set is at hand. */
export class ProviderKeysUnavailable extends Error {
  constructor(url: string, cause: unknown) {
    super(`the identity provider's keys could not be fetched from ${url}`, { cause });
    this.name = 'ProviderKeysUnavailable';
  }
}

type LocalSet = ReturnType<typeof createLocalJWKSet>;

export class ProviderKeys {
  readonly url: string;
  readonly #cooldownMs: number;
  readonly #maxAgeMs: number;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  #set: { keys: LocalSet; fetchedAt: number } | undefined;
  #pending: Promise<void> | undefined;
  #lastUnknownKeyRefetch = -Infinity;
  /** How many fetches were made (tests and logs). */
  fetches = 0;

  constructor(url: string, options: ProviderKeysOptions = {}) {
    this.url = url;
    this.#cooldownMs = options.cooldownMs ?? 30_000;
    this.#maxAgeMs = options.maxAgeMs ?? 600_000;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#now = options.now ?? Date.now;
  }

  /** A key resolver for jose's `jwtVerify`. */
  readonly resolve = async (header: JWSHeaderParameters, token: FlattenedJWSInput): ReturnType<LocalSet> => {
    if (!this.#set || this.#now() - this.#set.fetchedAt >= this.#maxAgeMs) await this.#reload();
    try {
      return await this.#set!.keys(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey) || this.#now() - this.#lastUnknownKeyRefetch < this.#cooldownMs)
        throw err;
      this.#lastUnknownKeyRefetch = this.#now();
      await this.#reload();
      return this.#set!.keys(header, token);
    }
  };

  /** One fetch at a time: concurrent callers share it. */
  #reload(): Promise<void> {
    this.#pending ??= this.#fetch().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async #fetch(): Promise<void> {
    this.fetches++;
    try {
      const response = await fetch(this.url, {
        headers: { accept: 'application/jwk-set+json, application/json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
      this.#set = { keys: createLocalJWKSet((await response.json()) as JSONWebKeySet), fetchedAt: this.#now() };
    } catch (err) {
      if (this.#set) {
        // Keep the set we have; try again at the first use after a cooldown.
        this.#set.fetchedAt = this.#now() - this.#maxAgeMs + this.#cooldownMs;
        return;
      }
      throw new ProviderKeysUnavailable(this.url, err);
    }
  }
}

/**
 * One key set per provider `jwk_uri`, made on first use: the bearer filter and the login flow of a provider share
 * it, so both follow one rotation with one fetch.
 */
export class ProviderKeySets {
  readonly #options: ProviderKeysOptions;
  readonly #sets = new Map<string, ProviderKeys>();

  constructor(options: ProviderKeysOptions = {}) {
    this.#options = options;
  }

  of(provider: { jwkUri: string }): ProviderKeys {
    let keys = this.#sets.get(provider.jwkUri);
    if (!keys) this.#sets.set(provider.jwkUri, (keys = new ProviderKeys(provider.jwkUri, this.#options)));
    return keys;
  }
}
