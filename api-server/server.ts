export interface RunningServer {
  url: string;
  /** Stops accepting connections, lets in-flight requests finish, and gives up after `deadlineMs`. */
  stop(deadlineMs?: number): Promise<void>;
}

/** What starting and stopping needs of the app, whatever its logger and type provider. */
export interface ListeningApp {
  listen(options: { host: string; port: number } | { host: string; handle: object }): Promise<string>;
  close(): PromiseLike<unknown>;
  server: { closeAllConnections(): void; closeIdleConnections(): void };
  log: { warn(object: object, message: string): void };
}

export async function startApiServer(app: ListeningApp, host: string, port: number): Promise<RunningServer> {
  return running(app, await app.listen({ host, port }));
}

/**
 * The same, on a socket that another process listens on and handed over (`handle`: "anything with an underlying
 * _handle member", node:net): embedded mode's further API processes accept connections on the first one's port.
 */
export async function startApiServerOn(app: ListeningApp, handle: object): Promise<RunningServer> {
  // Any host but `localhost`, on which fastify would open sockets of its own beside the one handed over.
  return running(app, await app.listen({ host: '127.0.0.1', handle }));
}

function running(app: ListeningApp, url: string): RunningServer {
  return {
    url,
    stop: async (deadlineMs = 10_000) => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          app.log.warn({ deadlineMs }, 'shutdown deadline passed: closing remaining connections');
          app.server.closeAllConnections();
          resolve();
        }, deadlineMs);
      });
      // A keep-alive connection that was busy when closing began turns idle later: close it as soon as it does.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
      await Promise.race([app.close(), deadline]);
      clearInterval(sweep);
      clearTimeout(timer);
    },
  };
}
