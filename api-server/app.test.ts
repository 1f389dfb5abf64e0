import { describe, expect, it } from 'vitest';
import { runErrorCodes } from '../core/runs/errors.ts';
import { documentedCodes } from '../test/support/documented-codes.ts';
import { errorCatalogue } from './errors.ts';
import { startApiServer } from './server.ts';
import { build } from './test/build.ts';

describe('API server', () => {
  it('refuses every write on a read-only instance with 403, except POST /result', async () => {
    const { app } = await build('read_only = on');
    // Later areas add write routes; the guard must hold for routes registered after it.
    app.post('/widgets', { config: { access: 'F_DATASET_MANAGE' } }, async () => ({ ok: true }));
    app.delete('/widgets/:id', { config: { access: 'F_DATASET_MANAGE' } }, async () => ({ ok: true }));
    for (const [method, url] of [
      ['POST', '/widgets'],
      ['DELETE', '/widgets/x'],
      ['PUT', '/process_graphs/x'],
    ] as const) {
      const res = await app.inject({ method, url });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        id: 'read-only',
        code: 'PermissionsInsufficient',
        message: `This instance is read-only: ${method} ${url} is refused.`,
        detail: `This instance is read-only: ${method} ${url} is refused.`,
      });
    }
    const sum = { s: { process_id: 'sum', arguments: { data: [40, 2] }, result: true } };
    const result = await app.inject({ method: 'POST', url: '/result', payload: { process: { process_graph: sum } } });
    expect(result.json()).toBe(42);
    expect((await app.inject({ url: '/datasets' })).statusCode).toBe(200);
  });

  it('answers a write that no route takes on a read-only instance as a read-write one does: 404, or 405', async () => {
    const { app } = await build('read_only = on');
    for (const [method, url, status] of [
      ['POST', '/no/such/path', 404],
      ['DELETE', '/datasets/x/nothing', 404],
      ['PUT', '/datasets/x', 405],
    ] as const) {
      const res = await app.inject({ method, url });
      expect([res.statusCode, res.json()]).toEqual([status, { detail: expect.any(String) }]);
    }
  });

  it('lets writes through on a read-write instance', async () => {
    const { app } = await build();
    app.post('/widgets', { config: { access: 'F_DATASET_MANAGE' } }, async () => ({ ok: true }));
    expect((await app.inject({ method: 'POST', url: '/widgets' })).statusCode).toBe(200);
  });

  it('echoes an alphanumeric X-Request-ID and puts it, as xRequestID and reqId, in every log line of the request', async () => {
    const { app, logLines } = await build();
    const res = await app.inject({ url: '/health', headers: { 'x-request-id': 'abc123XYZ' } });
    expect(res.headers['x-request-id']).toBe('abc123XYZ');
    const lines = logLines().filter((l) => l.xRequestID === 'abc123XYZ');
    // One line per request, written once it is answered (docs/logging.md).
    expect(lines.map((l) => l.msg)).toEqual(['request completed']);
    expect(lines[0]).toMatchObject({ reqId: 'abc123XYZ', sessionId: '', req: { method: 'GET', url: '/health' } });
    expect(lines[0]).toMatchObject({ res: { statusCode: 200 } });
    expect(typeof lines[0]!.responseTime).toBe('number');
  });

  it.each([
    ['not alphanumeric', { 'x-request-id': 'bad id\r\n<x>' }],
    ['absent', {}],
  ])(
    'logs an empty xRequestID when the X-Request-ID is %s, beside a generated reqId it answers with',
    async (_, headers) => {
      const { app, logLines } = await build();
      const res = await app.inject({ url: '/health', headers });
      const id = res.headers['x-request-id'];
      expect(id).toMatch(/^[a-f0-9]{32}$/);
      const lines = logLines().filter((l) => l.reqId === id);
      expect(lines.map((l) => l.msg)).toEqual(['request completed']);
      expect(lines.every((l) => l.xRequestID === '' && l.sessionId === '')).toBe(true);
    },
  );

  it('varies by Accept on every route that also answers HTML, its errors included, and nowhere else', async () => {
    const { app } = await build();
    for (const url of ['/', '/datasets', '/data-sources', '/collections', '/processes']) {
      const res = await app.inject({ url, headers: { accept: 'text/html' } });
      expect([url, res.statusCode, res.headers['content-type'], res.headers.vary]).toEqual([
        url,
        200,
        'text/html; charset=utf-8',
        'Accept',
      ]);
    }
    for (const url of ['/datasets/none', '/data-sources/none', '/collections/none', '/processes/none'])
      expect([url, (await app.inject({ url })).headers.vary]).toEqual([url, 'Accept']);
    for (const url of ['/health', '/features', '/stac/catalog.json'])
      expect(String((await app.inject({ url })).headers.vary), url).not.toMatch(/Accept/);
  });

  it('answers 422 HTTPValidationError for a bad query, 404 for an unknown path', async () => {
    const { app } = await build();
    const bad = await app.inject({ url: '/datasets?f=xml' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0]).toMatchObject({ loc: ['query', 'f'], type: 'invalid_value' });
    const missing = await app.inject({ url: '/no/such/path' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ detail: 'Not Found' });
  });

  it('hides the internals of a 500 from the body and logs them', async () => {
    const { app, logLines } = await build();
    app.get('/boom', async () => {
      throw new Error('secret database password in message');
    });
    const res = await app.inject({ url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ detail: 'Internal Server Error' });
    expect(JSON.stringify(logLines())).toContain('secret database password in message');
  });

  it('answers a CORS preflight and exposes the headers clients read', async () => {
    const { app } = await build();
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/datasets',
      headers: { origin: 'https://viewer.example.org', 'access-control-request-method': 'POST' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://viewer.example.org');
    const get = await app.inject({ url: '/health', headers: { origin: 'https://viewer.example.org' } });
    expect(get.headers['access-control-expose-headers']).toMatch(/Location.*OpenEO-Identifier.*X-Request-ID/);
  });

  it('exposes request metrics at /metrics', async () => {
    const { app } = await build();
    await app.inject({ url: '/health' });
    const res = await app.inject({ url: '/metrics' });
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.body).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/health",status_code="200"\} 1/,
    );
  });

  it('describes itself in OpenAPI 3.1 with resolvable components and every documented route', async () => {
    const { app } = await build();
    const doc = (await app.inject({ url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
    for (const path of ['/', '/health', '/info', '/extent', '/datasets', '/datasets/{dataset_id}', '/.well-known/eo']) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
    expect(doc.paths['/metrics']).toBeUndefined();
    for (const name of [
      'HealthStatus',
      'AppInfo',
      'RootResponse',
      'DatasetRecord',
      'DatasetDetailRecord',
      'HTTPValidationError',
      'ValidationError',
      'ExtentRecord',
      'Link',
    ]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((r) => !doc.components.schemas[r])).toEqual([]);
    expect(Object.keys(doc.paths['/datasets/{dataset_id}'].get.responses).sort()).toEqual(['200', '404', '422', '500']);
    const docs = await app.inject({ url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toMatch(/swagger-ui/i);
  });

  it("names every run error code in the job record's error type", async () => {
    const { app } = await build();
    const doc = (await app.inject({ url: '/openapi.json' })).json();
    const described: string = doc.components.schemas.JobError.properties.type.description;
    for (const code of runErrorCodes) expect(described, code).toContain(code);
  });

  it('finishes in-flight requests when it shuts down', async () => {
    const { app } = await build();
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    app.get('/slow', async () => {
      arrived();
      await new Promise((r) => setTimeout(r, 300));
      return { done: true };
    });
    const server = await startApiServer(app, '127.0.0.1', 0);
    const pending = fetch(`${server.url}/slow`).then((r) => r.json());
    // Shut down once the request is being handled (a fixed pause lost that race on a loaded machine).
    await inFlight;
    await server.stop(5_000);
    expect(await pending).toEqual({ done: true });
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it('documents exactly the error codes of the catalogue in docs/errors.md, each with its status', async () => {
    const documented = await documentedCodes('errors.md', 'API errors');
    expect([...documented.keys()].sort()).toEqual(Object.keys(errorCatalogue).sort());
    for (const [code, entry] of Object.entries(errorCatalogue))
      expect(documented.get(code)?.status, code).toBe(String(entry.status));
  });
});
