import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpGet } from './http.ts';

/** A server that moves `/moved` to `/file` and answers `/file`, noting each request's path and encoding. */
describe('httpGet', () => {
  let server: Server;
  let base: string;
  /** Each request's path and `accept-encoding`. */
  const seen: { path: string; encoding?: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url!, encoding: req.headers['accept-encoding'] });
      if (req.url === '/moved') return void res.writeHead(302, { location: '/file' }).end('moved');
      if (req.url === '/file') return void res.writeHead(200, { 'content-length': 5, 'x-kind': 'a' }).end('bytes');
      res.writeHead(404).end('not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('follows redirects, as fetch did, and asks for no content encoding (bodies arrive as stored)', async () => {
    seen.length = 0;
    const answer = await httpGet(`${base}/moved`);
    expect(answer.status).toBe(200);
    expect(new TextDecoder().decode(answer.bytes)).toBe('bytes');
    expect(answer.headers.get('x-kind')).toBe('a');
    expect(seen.map((s) => s.path)).toEqual(['/moved', '/file']);
    expect(seen.every((s) => s.encoding === undefined)).toBe(true);
  });
});
