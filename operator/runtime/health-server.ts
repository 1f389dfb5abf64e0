import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The operator's probe and metrics port: `/healthz` answers while the process runs, `/readyz` once `ready()`
 * holds, `/metrics` in Prometheus's text format.
 */
export async function startHealthServer(options: {
  host: string;
  port: number;
  registry: Registry;
  ready: () => boolean;
}): Promise<HealthServer> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://probe').pathname;
    const answer = (status: number, body: string, type = 'text/plain; charset=utf-8') =>
      response.writeHead(status, { 'content-type': type }).end(body);
    if (path === '/healthz') answer(200, 'ok\n');
    else if (path === '/readyz') answer(options.ready() ? 200 : 503, options.ready() ? 'ok\n' : 'not ready\n');
    else if (path === '/metrics')
      void options.registry.metrics().then(
        (text) => answer(200, text, options.registry.contentType),
        (err: unknown) => answer(500, String(err)),
      );
    else answer(404, 'not found\n');
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
