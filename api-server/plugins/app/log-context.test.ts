import fp from 'fastify-plugin';
import { describe, expect, it } from 'vitest';
import { contextOf, sessionLogId } from '../../../core/logging/context.ts';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { build } from '../../test/build.ts';
import { requestIdOf, setLogSession } from './log-context.ts';

/** Stands in for the session plugin: finds the session in a cookie and names it with the hook. */
const fakeSessions = fp(async (app) => {
  app.addHook('preHandler', async (request) => {
    const session = /(?:^|; )session=([^;]+)/.exec(request.headers.cookie ?? '')?.[1];
    if (session) setLogSession(request, session);
  });
});

describe('log context of a request', () => {
  it("takes the client's X-Request-ID as the request's id, else makes a new 32-hex-digit one each time", async () => {
    const { app } = await build();
    const ids = await Promise.all(
      Array.from({ length: 3 }, async () => String((await app.inject({ url: '/health' })).headers['x-request-id'])),
    );
    expect(ids).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/), expect.any(String), expect.any(String)]);
    expect(new Set(ids).size).toBe(3);
    expect(ids[1]!.slice(0, 16)).toBe(ids[0]!.slice(0, 16));
    expect(requestIdOf({ headers: { 'x-request-id': 'abc123' } } as never)).toBe('abc123');
  });

  it('names the session, hashed, in every line written once the session plugin found it', async () => {
    const { app, logLines } = await build();
    await app.register(fakeSessions);
    // A line written before the session plugin ran.
    app.addHook('onRequest', async (request) => request.log.info('arrived'));
    app.get('/whoami', async (request) => {
      request.log.info('handling');
      return request.logContext;
    });
    const res = await app.inject({ url: '/whoami', headers: { 'x-request-id': 'q7', cookie: 'session=s3cret' } });
    const hashed = sessionLogId('s3cret');
    expect(res.json()).toEqual({ xRequestID: 'q7', sessionId: hashed });
    const lines = logLines().filter((l) => l.xRequestID === 'q7');
    expect(lines.map((l) => [l.msg, l.sessionId])).toEqual([
      ['arrived', ''],
      ['handling', hashed],
      ['request completed', hashed],
    ]);
    expect(JSON.stringify(logLines())).not.toContain('s3cret');
  });

  it('records the context on the run a request starts', async () => {
    const { app, cluster } = await build();
    await app.register(fakeSessions);
    await cluster.create(dataSourceKind, {
      apiVersion: API_VERSION,
      kind: 'DataSource',
      metadata: { name: 'sample', namespace: 'default' },
      spec: { datasetName: 'Sample', itemType: 'coverage', periodType: 'daily', provider: { name: 'sample' } },
    });
    const res = await app.inject({
      method: 'POST',
      url: '/ingestions',
      headers: { 'x-request-id': 'ingest42', cookie: 'session=abc', prefer: 'respond-async' },
      payload: { dataset_id: 'sample', start: '2024-01-01', end: '2024-01-03' },
    });
    expect(res.statusCode, res.body).toBe(202);
    const run = await cluster.get<Ingestion>(ingestionKind, res.json().ingestion_id, 'default');
    expect(contextOf(run!)).toEqual({ xRequestID: 'ingest42', sessionId: sessionLogId('abc') });
  });
});
