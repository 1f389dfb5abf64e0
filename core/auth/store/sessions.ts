import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { isApiError } from '../../cluster/errors.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import type { Cluster } from '../../cluster/port.ts';
import { API_VERSION } from '../../resources/kind.ts';
import { sessionKind, type Session } from '../../resources/session/schema.ts';
import { randomSecret } from '../digest.ts';
import { sessionName } from './names.ts';

/**
 * Sign-in sessions of the login page. The cookie carries a random secret; the Session object is named by its
 * hash, so every replica finds it with one read and a copy of the store gives no session away.
 */
export const SESSION_TTL_SECONDS = 12 * 3600;

export type StoredSession = Session & KubeObject;

export class Sessions {
  readonly #cluster: Cluster;
  readonly #namespace: string;

  constructor(cluster: Cluster, namespace: string) {
    this.#cluster = cluster;
    this.#namespace = namespace;
  }

  /**
   * Starts a session for `principalName`; returns the cookie value, which only the browser keeps. A sign-in
   * through an external provider names it and keeps its ID token for the provider's logout, sealed with a key
   * that only the cookie gives, so the object still grants nothing to a reader of the store.
   */
  async start(
    principalName: string,
    now: Date,
    ttlSeconds = SESSION_TTL_SECONDS,
    external?: { provider: string; idToken: string },
  ): Promise<{ cookie: string; session: StoredSession }> {
    const cookie = randomSecret();
    const session = await this.#cluster.create<StoredSession>(sessionKind, {
      apiVersion: API_VERSION,
      kind: 'Session',
      metadata: { name: sessionName(cookie), namespace: this.#namespace },
      spec: {
        principalName,
        authTime: now.toISOString(),
        expiresAt: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
        ...(external ? { provider: external.provider, idTokenSealed: seal(cookie, external.idToken) } : {}),
      },
    });
    return { cookie, session };
  }

  /** The live session a cookie names; undefined for an unknown, expired or malformed cookie. */
  async find(cookie: string | undefined, now: Date): Promise<StoredSession | undefined> {
    if (!cookie || !/^[A-Za-z0-9_-]{43}$/.test(cookie)) return undefined;
    const session = await this.#cluster.get<StoredSession>(sessionKind, sessionName(cookie), this.#namespace);
    return session && new Date(session.spec.expiresAt) > now ? session : undefined;
  }

  async end(cookie: string): Promise<void> {
    try {
      await this.#cluster.delete(sessionKind, sessionName(cookie), this.#namespace);
    } catch (err) {
      if (!isApiError(err, 'NotFound')) throw err;
    }
  }
}

/** The provider's ID token of a session started through an external provider, unsealed with its cookie. */
export function sessionIdToken(cookie: string, session: StoredSession): string | undefined {
  const sealed = session.spec.idTokenSealed;
  if (!sealed) return undefined;
  const bytes = Buffer.from(sealed, 'base64url');
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(cookie), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

function sealingKey(cookie: string): Buffer {
  return Buffer.from(hkdfSync('sha256', cookie, '', 'stratus session id token', 32));
}

/** AES-256-GCM under a key derived from the cookie: nonce, ciphertext and tag, base64url. */
function seal(cookie: string, value: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(cookie), nonce);
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
}
