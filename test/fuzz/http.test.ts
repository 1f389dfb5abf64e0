/**
 * Fuzzing the HTTP API from its own OpenAPI description, so that every route added later is covered without a
 * change here: hostile path parameters (encodings of `..`, long and unicode strings), query values of the wrong
 * type, bodies that are wrong JSON, wrong types or wrong media types. Every answer must be below 500, and every
 * 4xx must carry one of the catalogue's bodies (docs/errors.md). Seeded: `FUZZ_SEED` replays a run, `FUZZ_REQUESTS`
 * sets its size (10,000 by default).
 */
import { describe, expect, it } from 'vitest';
import { dataSourceKind } from '../../core/resources/data-source/schema.ts';
import { API_VERSION } from '../../core/resources/registry.ts';
import { build } from '../../api-server/test/build.ts';
import { seededRandom } from '../support/seeded-random.ts';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

const SEGMENTS = [
  'sample',
  '..',
  '%2e%2e',
  '%252e%252e',
  '..%2f..%2fetc%2fpasswd',
  '..\\..\\windows',
  '%2e%2e%5c',
  '.',
  '%00',
  'a'.repeat(100),
  'a'.repeat(101),
  'b'.repeat(5000),
  '%F0%9D%94%98%F0%9D%94%AB',
  '%E2%80%AE',
  "'%3B%20drop",
  '-1',
  '1e309',
  'NaN',
  '%',
  '%zz',
  'c%2F0%2F0',
  '~',
  'CON',
];

const VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  -1e308,
  2 ** 53 + 1,
  0.1,
  '',
  ' ',
  'x'.repeat(70_000),
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '../../etc/passwd',
  '2024-13-45',
  '9999-12-31T23:59:60Z',
  '<script>alert(1)</script>',
  [],
  [1, 'a', null],
  {},
  { $ref: '#' },
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
];

/** Routes a browser opens, whose refusals are HTML pages for the person using it. */
const HTML_ROUTES = ['/oauth2/authorize', '/login', '/logout', '/oauth2/authorization/{key}', '/oauth2/code/{key}'];

interface Operation {
  method: string;
  path: string;
  query: string[];
  hasBody: boolean;
}

function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const op = operation as { parameters?: { in: string; name: string }[]; requestBody?: unknown };
      operations.push({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        hasBody: op.requestBody !== undefined || ['post', 'put', 'patch'].includes(method),
      });
    }
  return operations;
}

/** The catalogue's error bodies (api-server/errors.ts `errorBody`), one of which every 4xx must be. */
function isCatalogueBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  if (typeof b.detail === 'string' && Object.keys(b).length === 1) return true;
  if (Array.isArray(b.detail) && Object.keys(b).length === 1)
    return b.detail.every((item: { loc?: unknown; msg?: unknown; type?: unknown }) => {
      return Array.isArray(item.loc) && typeof item.msg === 'string' && typeof item.type === 'string';
    });
  if (b.id === 'read-only') return b.code === 'PermissionsInsufficient' && typeof b.message === 'string';
  if (typeof b.id === 'string' && typeof b.code === 'string')
    return typeof b.message === 'string' && Array.isArray(b.links);
  if (typeof b.error === 'string') return typeof b.error_description === 'string';
  if (typeof b.httpStatusCode === 'number') return typeof b.message === 'string' && b.status === 'ERROR';
  return false;
}

describe('the HTTP API under fuzzing from its OpenAPI description', () => {
  it(`answers ${REQUESTS} hostile requests without a 5xx, each 4xx with a catalogue body (seed in the output)`, async () => {
    // The authorization server on, so that its routes are fuzzed too.
    const { app, cluster } = await build(
      [
        'instance.name = Fuzz',
        'instance.bbox = -13.5,6.9,-10.2,10.0',
        'server.base.url = http://127.0.0.1:8000',
        'oauth2.server.enabled = on',
      ].join('\n'),
    );
    await cluster.create(dataSourceKind, {
      apiVersion: API_VERSION,
      kind: 'DataSource',
      metadata: { name: 'sample', namespace: 'default' },
      spec: { datasetName: 'Sample', itemType: 'coverage', periodType: 'daily', provider: { name: 'sample' } },
    });
    const operations = operationsOf((await app.inject({ url: '/openapi.json' })).json());
    expect(operations.length).toBeGreaterThan(30);

    const next = seededRandom(SEED);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    for (let i = 0; i < REQUESTS && failures.length < 20; i++) {
      const operation = pick(operations);
      const path = operation.path.replace(/\{[^}]+\}/g, () => pick(SEGMENTS));
      const query = operation.query
        .filter(() => next() < 0.5)
        .map(
          (name) =>
            `${encodeURIComponent(name)}=${next() < 0.5 ? pick(SEGMENTS) : encodeURIComponent(String(pick(VALUES)))}`,
        );
      const url = `${path}${query.length ? `?${query.join('&')}` : ''}`;
      const headers: Record<string, string> = { prefer: 'respond-async' };
      let payload: string | undefined;
      if (operation.hasBody) {
        const shape = next();
        if (shape < 0.15) payload = '{"unterminated": ';
        else if (shape < 0.25) {
          payload = 'a=b&c=d';
          headers['content-type'] = pick(['text/plain', 'application/xml', 'application/x-www-form-urlencoded']);
        } else {
          const body = Object.fromEntries(
            Array.from({ length: 1 + Math.floor(next() * 4) }, () => [
              pick(['dataset_id', 'start', 'end', 'overwrite', 'publish', 'process', 'id', 'name', 'x']),
              pick(VALUES),
            ]),
          );
          payload = JSON.stringify(next() < 0.1 ? pick(VALUES) : body);
        }
        headers['content-type'] ??= 'application/json';
      }
      const res = await app.inject({ method: operation.method as 'GET', url, headers, payload });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      const describe_ = `${operation.method} ${url.slice(0, 200)} ${headers['content-type'] ?? ''} ${payload?.slice(0, 100) ?? ''} -> ${res.statusCode} ${res.body.slice(0, 200)}`;
      if (res.statusCode >= 500) failures.push(describe_);
      else if (res.statusCode >= 400) {
        let body: unknown;
        try {
          body = res.json();
        } catch {
          body = undefined;
        }
        // The browser endpoints of sign-in answer a person with a page (docs/authorization.md), not a client.
        const page = HTML_ROUTES.includes(operation.path) && /^text\/html/.test(String(res.headers['content-type']));
        if (!page && !isCatalogueBody(body)) failures.push(`undocumented body: ${describe_}`);
      }
    }
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    console.log(
      `fuzz: seed ${SEED}, ${total} requests over ${operations.length} operations; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
    expect(failures, `seed ${SEED}`).toEqual([]);
    expect(total).toBe(REQUESTS);
  }, 240_000);
});
