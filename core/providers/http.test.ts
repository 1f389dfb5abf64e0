import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpGet } from './http.ts';

/** A server that moves `/moved` to `/file` and answers `/file`, noting each request's path and encoding. */
describe('httpGet', () => {
  let server: Server;
  let base: string;
  /** Each request's host, path, `accept-encoding` and `authorization`. */
  const seen: { host?: string; path: string; encoding?: string; authorization?: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const { host, authorization } = req.headers;
      seen.push({ host, path: req.url!, encoding: req.headers['accept-encoding'], authorization });
      if (req.url === '/moved') return void res.writeHead(302, { location: '/file' }).end('moved');
      // The same server by another name: another origin.
      if (req.url === '/away') {
        const location = `http://localhost:${(server.address() as { port: number }).port}/file`;
        return void res.writeHead(302, { location }).end('moved');
      }
      if (req.url === '/hang') return; // never answers
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

  it('keeps the credentials on a redirect within the origin and drops them on one to another origin', async () => {
    const authorization = 'Bearer secret';
    seen.length = 0;
    await httpGet(`${base}/moved`, { headers: { authorization } });
    expect(seen.map((s) => s.authorization)).toEqual([authorization, authorization]);
    seen.length = 0;
    const answer = await httpGet(`${base}/away`, { headers: { authorization } });
    expect(new TextDecoder().decode(answer.bytes)).toBe('bytes');
    expect(seen.map((s) => [s.host?.split(':')[0], s.path, s.authorization])).toEqual([
      ['127.0.0.1', '/away', authorization],
      ['localhost', '/file', undefined],
    ]);
  });

  it('gives up on a server that never answers, naming the timeout, and stops at once when the caller aborts', async () => {
    const options = { timeoutMs: 200, attempts: 2, backoffMs: 5 };
    await expect(httpGet(`${base}/hang`, options)).rejects.toThrow(/failed after 2 attempts: no answer within 200 ms/);
    const caller = new AbortController();
    const started = performance.now();
    const reading = httpGet(`${base}/hang`, { ...options, timeoutMs: 60_000, signal: caller.signal });
    setTimeout(() => caller.abort(new Error('run cancelled')), 50);
    await expect(reading).rejects.toThrow('run cancelled');
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it('leaves no listener on the caller signal once a read is done, however many reads share it', async () => {
    const caller = new AbortController();
    for (let n = 0; n < 5; n++) await httpGet(`${base}/file`, { signal: caller.signal });
    await expect(httpGet(`${base}/hang`, { signal: caller.signal, timeoutMs: 100, attempts: 1 })).rejects.toThrow(
      /no answer within 100 ms/,
    );
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });
});
