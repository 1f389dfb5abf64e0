import type { Server } from 'node:http';
import type { InstanceConfig } from '../core/config/index.ts';
import { resetConnections } from './http-server.ts';

export interface RunningServer {
  url: string;
  /**
   * Stops accepting connections and requests, lets the responses in flight finish for `deadlineMs` (by default
   * `server.timeout.shutdown`), then resets the connections still open, which cancels what they were computing.
   */
  stop(deadlineMs?: number): Promise<void>;
  /** How long `stop` takes at most unless the app's own closing hangs: `server.timeout.shutdown`. */
  stopTakesMs: number;
}

/** What starting and stopping needs of the app, whatever its logger and type provider. */
export interface ListeningApp {
  listen(options: { host: string; port: number } | { host: string; handle: object }): Promise<string>;
  close(): PromiseLike<unknown>;
  server: Server;
  log: { warn(object: object, message: string): void };
  stratus: { config: Pick<InstanceConfig, 'server'> };
}

export async function startApiServer(app: ListeningApp, host: string, port: number): Promise<RunningServer> {
  return running(app, await app.listen({ host, port }));
}

/**
 * The same, on a socket that already listens (`handle`: "anything with an underlying _handle member", node:net):
 * embedded mode takes its port before it opens the store, and its further API processes accept connections on the
 * first one's port.
 */
export async function startApiServerOn(app: ListeningApp, handle: object): Promise<RunningServer> {
  // Any host but `localhost`, on which fastify would open sockets of its own beside the one handed over.
  return running(app, await app.listen({ host: '127.0.0.1', handle }));
}

function running(app: ListeningApp, url: string): RunningServer {
  return {
    url,
    stopTakesMs: app.stratus.config.server.timeouts.shutdownMs,
    stop: async (deadlineMs = app.stratus.config.server.timeouts.shutdownMs) => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          app.log.warn({ deadlineMs }, 'shutdown deadline passed: resetting the remaining connections');
          resetConnections(app.server);
          resolve();
        }, deadlineMs);
      });
      // A keep-alive connection that was busy when closing began turns idle later: close it as soon as it does.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
      const closed = app.close();
      await Promise.race([closed, deadline]);
      clearInterval(sweep);
      clearTimeout(timer);
      // Past the deadline too: the app's own closing (worker pools, caches) runs once the last connection is gone.
      await closed;
    },
  };
}
