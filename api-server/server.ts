export interface RunningServer {
  url: string;
  /** Stops accepting connections, lets in-flight requests finish, and gives up after `deadlineMs`. */
  stop(deadlineMs?: number): Promise<void>;
}

/** What starting and stopping needs of the app, whatever its logger and type provider. */
export interface ListeningApp {
  listen(options: { host: string; port: number }): Promise<string>;
  close(): PromiseLike<unknown>;
  server: { closeAllConnections(): void; closeIdleConnections(): void };
  log: { warn(object: object, message: string): void };
}

export async function startApiServer(app: ListeningApp, host: string, port: number): Promise<RunningServer> {
  const url = await app.listen({ host, port });
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
