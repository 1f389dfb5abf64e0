import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { Logger } from 'pino';
import { logRequestCompleted } from '../../plugins/app/log-context.ts';
import { datasetRefSchema } from '../../schemas.ts';
import { entityResponse, type Entity } from '../files/entity.ts';
import { datasetRef, type DatasetRef } from '../resources/served-version.ts';
import type { ServedVersions } from './served-versions.ts';
import type { ZarrKeys, ZarrVersion } from './zarr-keys.ts';

/** The route whose requests the fast path answers; metrics name it as fastify does. */
export const ZARR_ROUTE = '/zarr/:dataset_id/*';

/**
 * A path the fast path can take as it stands: one key below a dataset reference (`<id>` or `<id>@<version>`),
 * nothing fastify would decode or strip (no `%`, query or fragment), no directory listing.
 */
const PLAIN_KEY = /^\/zarr\/([^/?#%]+)\/([^?#%]*[^/?#%])$/;

export interface ZarrFastPathOptions {
  keys: ZarrKeys;
  /** The served versions as a watch keeps them; a dataset it does not know is read from the resource store. */
  versions: ServedVersions;
  /** Headers every answer carries besides the entity's, as the application's hooks write them. */
  headers: Record<string, string>;
  /** The request id, as the application makes it. */
  requestId: (request: IncomingMessage) => string;
  /** The application's logger and its per-request child, so that both paths log the same lines. */
  log: Logger;
  requestLog: (log: Logger, request: IncomingMessage, requestId: string) => Logger;
  /** Records one answered request in the application's request metrics. */
  observe: (method: string, statusCode: number, seconds: number) => void;
  /** True once the application closes: fastify then answers 503, so the fast path steps aside. */
  closing: () => boolean;
}

export interface FastPathClaim {
  ref: DatasetRef;
  key: string;
  version: ZarrVersion | undefined;
}

export interface ZarrFastPath {
  /**
   * The dataset reference and key when the fast path may answer this request, decided without waiting, with the
   * version it reads when the watch knows the dataset.
   */
  claims(request: IncomingMessage): FastPathClaim | undefined;
  /**
   * Answers a claimed request and gives true, or gives false, having sent nothing, for fastify to answer. A key
   * whose entity is in memory is answered at once (true); otherwise the answer is a promise of the same.
   */
  serve(request: IncomingMessage, response: ServerResponse, claim: FastPathClaim): boolean | Promise<boolean>;
}

/**
 * Chunk reads are most of a Zarr client's requests, and small chunks make the framework's per-request work (hooks,
 * the reply object, schema validation) the larger part of the cost. The fast path answers the plain case, a key
 * that exists in the current version or in a retained one a path names (`<id>@<version>`), from the same `ZarrKeys` and `entityResponse` as the `/zarr` route, with the
 * same headers, request id, log lines and metrics. Everything else goes to fastify untouched: errors (with their
 * bodies), directory listings, encoded paths, and cross-origin requests (`Origin`), whose CORS headers are the
 * CORS plugin's to write.
 */
export function zarrFastPath(options: ZarrFastPathOptions): ZarrFastPath {
  const { keys, log } = options;

  /** The entity to send, or undefined for fastify to answer: no such key, or an error with its own body. */
  async function find(ref: DatasetRef, key: string, known: ZarrVersion | undefined): Promise<Entity | undefined> {
    try {
      return await keys.entity(known ?? (await keys.version(ref)), key);
    } catch {
      return undefined;
    }
  }

  function send(request: IncomingMessage, response: ServerResponse, entity: Entity, started: number): boolean {
    let answer;
    try {
      answer = entityResponse({ method: request.method!, headers: request.headers }, entity);
    } catch {
      // 416, which the route's error handler answers with its body.
      return false;
    }
    const requestId = options.requestId(request);
    const requestLog = log.isLevelEnabled('info') ? options.requestLog(log, request, requestId) : undefined;
    const finished = () => {
      const elapsed = performance.now() - started;
      options.observe(request.method!, response.statusCode, elapsed / 1000);
      if (requestLog) logRequestCompleted(requestLog, request, response, elapsed);
    };
    response.writeHead(answer.status, { ...options.headers, ...answer.headers, 'x-request-id': requestId });
    const { body } = answer;
    if (body === undefined || body instanceof Uint8Array) response.end(body, finished);
    else
      pipeline(body, response, (error) => {
        if (error) requestLog?.warn({ err: error }, 'store read failed mid-response');
        finished();
      });
    return true;
  }

  return {
    claims(request) {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || request.headers.origin !== undefined) return;
      // Credentials are checked by the authentication hook (a wrong one is 401 even where anyone may read).
      if (request.headers.authorization !== undefined) return;
      if (options.closing()) return;
      const match = PLAIN_KEY.exec(request.url ?? '');
      if (!match) return;
      const ref = datasetRef(match[1]!);
      // A version the watch resolved has a valid reference already: only an unknown one is checked.
      const version = options.versions.version(ref);
      if (!version && !datasetRefSchema.safeParse(match[1]).success) return;
      return { ref, key: match[2]!, version };
    },

    serve(request, response, { ref, key, version }) {
      const started = performance.now();
      const cached = version && keys.cachedEntity(version, key);
      if (cached) return send(request, response, cached, started);
      return find(ref, key, version).then((entity) => entity !== undefined && send(request, response, entity, started));
    },
  };
}
