/**
 * Fuzzing the HTTP API from its own OpenAPI description, so that every route added later is covered without a
 * change here: hostile path parameters (encodings of `..`, long and unicode strings), query values of the wrong
 * type, bodies that are wrong JSON, wrong types or wrong media types. Every answer must be below 500, and every
 * 4xx must carry one of the catalogue's bodies (docs/errors.md). Seeded: `FUZZ_SEED` replays a run, `FUZZ_REQUESTS`
 * sets its size (10,000 by default).
 */
import { describe, expect, it } from 'vitest';
import { buildFuzzApp } from './fuzz-app.ts';
import { seededRandom } from '../support/seeded-random.ts';
import { envelopeOf } from './envelopes.ts';
import { VALUES } from './values.ts';

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

describe('the HTTP API under fuzzing from its OpenAPI description', () => {
  it(`answers ${REQUESTS} hostile requests without a 5xx, each 4xx with a catalogue body (seed in the output)`, async () => {
    const { app } = await buildFuzzApp();
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
        if (!page && envelopeOf(body) === undefined) failures.push(`undocumented body: ${describe_}`);
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
