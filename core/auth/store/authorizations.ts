import { randomBytes } from 'node:crypto';
import { isApiError } from '../../cluster/errors.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import type { Cluster } from '../../cluster/port.ts';
import { oauth2AuthorizationKind, type OAuth2Authorization } from '../../resources/oauth2-authorization/schema.ts';
import { randomSecret, safeEqual, tokenHash } from '../digest.ts';
import { AUTHORIZATION_PREFIX } from './names.ts';

/**
 * OAuth2Authorization objects: one per grant (a code and the tokens issued from it, or a client_credentials
 * token), shaped like Spring Authorization Server's, holding token hashes only. Every change is a compare-and-swap
 * on `metadata.resourceVersion`: two requests that read the same version cannot both write, so a code or a
 * refresh token is used once however many replicas see it at the same moment.
 */
export type Authorization = OAuth2Authorization & KubeObject;
export type StoredToken = NonNullable<OAuth2Authorization['spec']['accessToken']>;
export type RevocationReason = NonNullable<OAuth2Authorization['spec']['revocation']>['reason'];

const TOKEN_FIELDS = ['authorizationCode', 'accessToken', 'refreshToken', 'idToken'] as const;

export function newAuthorizationName(): string {
  return `${AUTHORIZATION_PREFIX}${randomBytes(16).toString('hex')}`;
}

/** An opaque value that names its object: `<object name>.<secret>` (authorization codes). */
export function newHandle(objectName: string): string {
  return `${objectName}.${randomSecret()}`;
}

/** Whether `name` can be an authorization object's name: anything else (empty, a path) is never read. */
export function isAuthorizationName(name: string): boolean {
  return name.startsWith(AUTHORIZATION_PREFIX) && /^[a-z0-9-]{1,100}$/.test(name);
}

export function authorizationNameOf(handle: string): string | undefined {
  const dot = handle.lastIndexOf('.');
  const name = dot > 0 ? handle.slice(0, dot) : '';
  return isAuthorizationName(name) ? name : undefined;
}

export function storedToken(value: string, issuedAt: Date, ttlSeconds: number): StoredToken {
  return {
    hash: tokenHash(value),
    issuedAt: issuedAt.toISOString(),
    expiresAt: new Date(issuedAt.getTime() + ttlSeconds * 1000).toISOString(),
    invalidated: false,
  };
}

/** Whether `value` is the token an object describes (by hash, in constant time). */
export function isTokenOf(record: StoredToken | undefined, value: string): boolean {
  return record !== undefined && safeEqual(tokenHash(value), record.hash);
}

export function isExpired(record: StoredToken, now: Date): boolean {
  return new Date(record.expiresAt) <= now;
}

/** When the last token of the authorization expires: after it the object can go (core/auth/store/expiry.ts). */
export function authorizationExpiry(authorization: OAuth2Authorization): Date | undefined {
  const times = TOKEN_FIELDS.flatMap((field) => {
    const record = authorization.spec[field];
    return record ? [new Date(record.expiresAt).getTime()] : [];
  });
  return times.length > 0 ? new Date(Math.max(...times)) : undefined;
}

/** The authorization revoked: every token invalidated, and why. */
export function revokedCopy(authorization: Authorization, reason: RevocationReason, now: Date): Authorization {
  const spec = structuredClone(authorization.spec);
  for (const field of TOKEN_FIELDS) if (spec[field]) spec[field] = { ...spec[field], invalidated: true };
  spec.revocation = { time: now.toISOString(), reason };
  return { ...authorization, spec };
}

/** What one attempt of a change decides: an object to write (compare-and-swap) and the result to return. */
export interface Step<T> {
  write?: Authorization;
  result: T;
}

/** How often a change is tried again after losing a compare-and-swap before it gives up. */
const MAX_ATTEMPTS = 50;

export class AuthorizationStore {
  readonly #cluster: Cluster;
  readonly #namespace: string;
  readonly #reads: Cluster;

  /**
   * `reads` answers `get`, the check of every bearer request, and may be an informer cache a moment behind other
   * replicas' writes; a change always reads `cluster`, so a compare-and-swap never loses to a stale read.
   */
  constructor(cluster: Cluster, namespace: string, reads: Cluster = cluster) {
    this.#cluster = cluster;
    this.#namespace = namespace;
    this.#reads = reads;
  }

  get namespace(): string {
    return this.#namespace;
  }

  /** The object, or undefined; a malformed name reads nothing (on Kubernetes an empty name would list the kind). */
  async get(name: string): Promise<Authorization | undefined> {
    return this.#read(this.#reads, name);
  }

  #read(cluster: Cluster, name: string): Promise<Authorization | undefined> {
    if (!isAuthorizationName(name)) return Promise.resolve(undefined);
    return cluster.get<Authorization>(oauth2AuthorizationKind, name, this.#namespace);
  }

  create(authorization: Authorization): Promise<Authorization> {
    return this.#cluster.create(oauth2AuthorizationKind, authorization);
  }

  /**
   * Reads the object, lets `step` decide from what it read, and writes its decision only if nobody wrote in
   * between; when somebody did (409 Conflict), reads again and lets `step` decide anew from the newer state.
   */
  async change<T>(name: string, step: (current: Authorization | undefined) => Promise<Step<T>>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.#read(this.#cluster, name);
      const { write, result } = await step(current);
      if (!write) return result;
      try {
        await this.#cluster.update(oauth2AuthorizationKind, {
          ...write,
          metadata: { ...write.metadata, resourceVersion: current?.metadata.resourceVersion },
        });
        return result;
      } catch (err) {
        if (!isApiError(err, 'Conflict') || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }

  /** Revokes the whole authorization (idempotent). */
  revoke(name: string, reason: RevocationReason, now: Date): Promise<void> {
    return this.change(name, async (current) => ({
      write: current && !current.spec.revocation ? revokedCopy(current, reason, now) : undefined,
      result: undefined,
    }));
  }
}
