import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startApiServer, type RunningServer } from './server.ts';
import { build } from './test/build.ts';
import { publishedDataset } from './test/published-dataset.ts';

const CONFIG = 'instance.name = Test instance\ninstance.bbox = -13.5,6.9,-10.2,10.0';

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.stop(1_000);
  running = undefined;
});

async function listen(extraConfig = '') {
  const { app } = await build(`${CONFIG}\n${extraConfig}`);
  running = await startApiServer(app, '127.0.0.1', 0);
  return new URL(running.url);
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting until the server closed the connection. */
  closedAfterMs: number;
}

/** Writes `chunks` on a raw connection (each after `gapMs`), then reads until the server closes it. */
function raw(url: URL, chunks: string[], gapMs = 0): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(url.port), url.hostname);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => (received += data));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, closedAfterMs: Date.now() - started });
    });
    void (async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
    })();
  });
}

describe('the HTTP server', () => {
  it('answers what the router refuses with the catalogue: bad percent-encoding 400, a long path parameter 414', async () => {
    const { app } = await build(CONFIG);
    for (const url of ['/%', '/datasets/%zz']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toEqual({ detail: 'The path is not valid percent-encoding.' });
    }
    const long = await app.inject({ url: `/datasets/${'a'.repeat(101)}` });
    expect(long.statusCode).toBe(414);
    expect(long.json()).toEqual({ detail: 'A path parameter is longer than 100 characters.' });
  });

  it('answers a malformed JSON body with the catalogue body even where the route declares another envelope', async () => {
    const { app } = await build(`${CONFIG}\nserver.base.url = http://127.0.0.1:8000\noauth2.server.enabled = on`);
    // The token endpoint's 400 schema is OAuth2's; the parse failure is the catalogue's BadRequest (it was a 500).
    const res = await app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/json' },
      payload: '{"unterminated": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: expect.any(String) });
  });

  it('answers 405 with Allow for a path that exists with other methods, 404 for a path that does not', async () => {
    const { app } = await build(CONFIG);
    const wrong = await app.inject({ method: 'DELETE', url: '/health' });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.json()).toEqual({ detail: 'DELETE is not allowed on this path.' });
    expect(wrong.headers.allow).toBe('GET, HEAD, OPTIONS');
    const withParameter = await app.inject({ method: 'PATCH', url: '/datasets/sample' });
    expect(withParameter.statusCode).toBe(405);
    expect(withParameter.headers.allow).toContain('GET');
    // A route of the method that finds nothing stays a 404.
    expect((await app.inject({ url: '/docs/static/no-such-file.js' })).statusCode).toBe(404);
    const missing = await app.inject({ method: 'DELETE', url: '/no/such/path' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: 'Not Found' });
  });

  it('answers 404, not 500, for paths that climb out of the docs folder', async () => {
    const url = await listen();
    for (const path of ['/docs/static/../etc/passwd', '/docs/static/%2e%2e/x', '/docs/static/..%2f..%2fetc/passwd']) {
      // A raw request line: fetch would resolve the dots away.
      const answer = await raw(url, [`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);
      expect(answer.status, path).toBe(404);
      expect(JSON.parse(answer.body), path).toEqual({ detail: expect.any(String) });
    }
  });

  it('answers requests HTTP cannot parse, headers too large and CONNECT with catalogue bodies, then closes', async () => {
    const url = await listen();
    const unknownMethod = await raw(url, ['FROB / HTTP/1.1\r\nHost: x\r\n\r\n']);
    expect(unknownMethod).toMatchObject({ status: 400, headers: { connection: 'close' } });
    expect(JSON.parse(unknownMethod.body)).toEqual({ detail: 'The request is not valid HTTP.' });

    const huge = await raw(url, [`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body)).toEqual({ detail: 'The request headers exceed the size limit.' });

    const tunnel = await raw(url, ['CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n']);
    expect(tunnel.status).toBe(405);
    expect(JSON.parse(tunnel.body)).toEqual({ detail: 'CONNECT is not supported: this server is no proxy.' });
  });

  it.each([
    ['Host', 'Host: a.example.org\r\nHost: b.example.org'],
    ['Authorization', 'Host: x\r\nAuthorization: Basic YTpi\r\nauthorization: Bearer t'],
    ['Content-Type', 'Host: x\r\nContent-Type: text/plain\r\nContent-Type: application/json'],
  ])('answers a repeated %s 400 with the catalogue body, then closes', async (name, headers) => {
    const url = await listen();
    const single = await raw(url, ['GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    expect(single.status).toBe(200);
    // Without Connection: close: the server closes the connection itself.
    const answer = await raw(url, [`GET /health HTTP/1.1\r\n${headers}\r\n\r\n`]);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({
      detail: `The request carries the header ${name.toLowerCase()} more than once.`,
    });
    expect(answer.headers['connection']).toBe('close');
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
  });

  it('cuts a body that never finishes at server.timeout.request with 408, and trickled headers at server.timeout.headers', async () => {
    const url = await listen('server.timeout.headers = 1\nserver.timeout.request = 2');
    // Content-Length 1000, one byte sent: held open for ever before.
    const body = await raw(url, [
      'POST /ingestions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    ]);
    expect(body.status).toBe(408);
    expect(JSON.parse(body.body)).toEqual({ detail: 'The request did not arrive in time.' });
    expect(body.closedAfterMs).toBeGreaterThanOrEqual(1_900);
    expect(body.closedAfterMs).toBeLessThan(10_000);

    // One header line every 300 ms: the headers are not complete after 1 s.
    const lines = ['GET /health HTTP/1.1\r\n', ...Array.from({ length: 20 }, (_, i) => `X-Slow-${i}: 1\r\n`)];
    const headers = await raw(url, lines, 300);
    expect(headers.status).toBe(408);
    expect(headers.closedAfterMs).toBeLessThan(5_000);
  });

  it('closes an idle keep-alive connection after server.timeout.keep_alive', async () => {
    const url = await listen('server.timeout.keep_alive = 1');
    const answer = await raw(url, ['GET /health HTTP/1.1\r\nHost: x\r\n\r\n']);
    expect(answer.status).toBe(200);
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(answer.closedAfterMs).toBeLessThan(5_000);
  });
});

describe('the framing of answers', () => {
  // HTTP/1.0 has no chunked encoding: without a Content-Length only the connection's close would end the body, and a
  // body cut short (a stop past its bound) would look complete.
  it('gives an HTTP/1.0 client a Content-Length for JSON, a synchronous result, a store file and an error', async () => {
    const built = await build(CONFIG);
    await publishedDataset(built, 'rain');
    running = await startApiServer(built.app, '127.0.0.1', 0);
    const url = new URL(running.url);
    const graph = JSON.stringify({
      process: { process_graph: { a: { process_id: 'array_create', arguments: { data: [1, 2] }, result: true } } },
    });
    const requests: [string, number][] = [
      ['GET /datasets HTTP/1.0\r\n\r\n', 200],
      [
        `POST /result HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: ${graph.length}\r\n\r\n${graph}`,
        200,
      ],
      ['GET /zarr/rain/precip/0.0.0 HTTP/1.0\r\n\r\n', 200],
      ['GET /zarr/rain/.zmetadata HTTP/1.0\r\n\r\n', 200],
      ['GET /datasets/none HTTP/1.0\r\n\r\n', 404],
    ];
    for (const [request, status] of requests) {
      const answer = await raw(url, [request]);
      expect(answer.status, request).toBe(status);
      expect(Number(answer.headers['content-length']), request).toBe(Buffer.byteLength(answer.body, 'latin1'));
    }
  });
});

describe('the HTTP server while it drains', () => {
  it('answers a request that arrives on an open connection with the catalogue 503 and closes it, after finishing the one before', async () => {
    const url = await listen();
    const socket = connect(Number(url.port), url.hostname);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => (received += data));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    // A request in flight when the stop begins: its body is not all there yet.
    socket.write('POST /result HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stopping = running!.stop(5_000);
    running = undefined;
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.write('}GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n');
    await closed;
    await stopping;

    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 400 /);
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/\r\nConnection: close\r\n/i);
    expect(second!.split('\r\n\r\n')[1]).toBe('{"detail":"The server is shutting down: send the request again."}');
  });
});
