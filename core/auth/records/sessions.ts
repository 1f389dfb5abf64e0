import { isApiError } from '../../cluster/errors.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import type { Cluster } from '../../cluster/port.ts';
import { API_VERSION } from '../../resources/kind.ts';
import { sessionKind, type Session } from '../../resources/session/schema.ts';
import { randomSecret } from '../digest.ts';
import { sessionName } from './names.ts';

/**
 * Sign-in sessions of the login page. The cookie carries a random secret; the Session record is named by its
 * hash, so every replica finds it with one read and a copy of the store gives no session away.
 */
export const SESSION_TTL_SECONDS = 12 * 3600;

export type SessionRecord = Session & KubeObject;

export class Sessions {
  readonly #cluster: Cluster;
  readonly #namespace: string;

  constructor(cluster: Cluster, namespace: string) {
    this.#cluster = cluster;
    this.#namespace = namespace;
  }

  /** Starts a session for `principalName`; returns the cookie value, which only the browser keeps. */
  async start(
    principalName: string,
    now: Date,
    ttlSeconds = SESSION_TTL_SECONDS,
  ): Promise<{ cookie: string; session: SessionRecord }> {
    const cookie = randomSecret();
    const session = await this.#cluster.create<SessionRecord>(sessionKind, {
      apiVersion: API_VERSION,
      kind: 'Session',
      metadata: { name: sessionName(cookie), namespace: this.#namespace },
      spec: {
        principalName,
        authTime: now.toISOString(),
        expiresAt: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
      },
    });
    return { cookie, session };
  }

  /** The live session a cookie names; undefined for an unknown, expired or malformed cookie. */
  async find(cookie: string | undefined, now: Date): Promise<SessionRecord | undefined> {
    if (!cookie || !/^[A-Za-z0-9_-]{43}$/.test(cookie)) return undefined;
    const session = await this.#cluster.get<SessionRecord>(sessionKind, sessionName(cookie), this.#namespace);
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
