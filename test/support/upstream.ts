/**
 * A local stand-in for an upstream provider: serves a directory over HTTP in the provider's own URL layout, with
 * byte ranges and optional basic auth, and injects the failures providers must survive (5xx, hangs, truncated
 * bodies) on demand. Tests point a DataSource's `baseUrl` at it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';

export type Fault = 'status-500' | 'status-503' | 'hang' | 'truncate';

export interface Upstream {
  url: string;
  /** Requests seen, as `METHOD path range`. */
  requests: string[];
  /** Queues faults for the next requests whose path ends with `suffix`. */
  fail(suffix: string, ...faults: Fault[]): void;
  close(): Promise<void>;
}

/** HTTP basic credentials, or the exact `Authorization` value an API expects (e.g. `ApiToken ...`). */
export type UpstreamAuth = { user: string; password: string } | { authorization: string };

export interface UpstreamOptions {
  /** The file (relative to the root) that answers a request, for APIs whose query selects the content. */
  fileFor?: (url: URL) => string;
}

export async function startUpstream(
  root: string,
  auth?: UpstreamAuth,
  options: UpstreamOptions = {},
): Promise<Upstream> {
  const faults: { suffix: string; fault: Fault }[] = [];
  const requests: string[] = [];
  const hanging = new Set<ServerResponse>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = decodeURIComponent(url.pathname);
    requests.push(`${req.method} ${path}${url.search} ${req.headers.range ?? ''}`.trim());
    if (auth) {
      const expected =
        'authorization' in auth
          ? auth.authorization
          : `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`;
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="upstream"' }).end();
        return;
      }
    }
    const index = faults.findIndex((f) => path.endsWith(f.suffix));
    const fault = index >= 0 ? faults.splice(index, 1)[0]!.fault : undefined;
    if (fault === 'status-500' || fault === 'status-503') {
      res.writeHead(Number(fault.slice(7))).end('upstream trouble');
      return;
    }
    if (fault === 'hang') {
      hanging.add(res);
      return;
    }
    const file = normalize(join(root, options.fileFor?.(url) ?? path));
    if (!file.startsWith(root)) return void res.writeHead(400).end();
    const bytes = await readFile(file).catch(() => undefined);
    if (!bytes) return void res.writeHead(404).end('not found');
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    let [start, end, status] = [0, bytes.length - 1, 200];
    if (range) {
      start = Number(range[1]);
      end = range[2] ? Math.min(Number(range[2]), bytes.length - 1) : bytes.length - 1;
      status = 206;
    }
    const body = bytes.subarray(start, end + 1);
    res.writeHead(status, {
      'content-length': body.length,
      'accept-ranges': 'bytes',
      ...(status === 206 && { 'content-range': `bytes ${start}-${end}/${bytes.length}` }),
    });
    if (req.method === 'HEAD') return void res.end();
    // A truncated body: promise every byte, send half, then drop the connection.
    if (fault === 'truncate') return void res.write(body.subarray(0, body.length >> 1), () => res.destroy());
    res.end(body);
  };
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    fail: (suffix, ...list) => faults.push(...list.map((fault) => ({ suffix, fault }))),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
