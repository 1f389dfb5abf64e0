/**
 * Fuzzing every write route of the app's route table (POST, PUT, PATCH, DELETE) as the signed-in first admin, so
 * that bodies get past authentication into the parsers and handlers: wrong JSON, wrong types, huge strings, deep
 * nesting, unknown members, wrong media types, lying Content-Encoding and Content-Length, bytes that are not UTF-8.
 * No answer may be a 5xx; every 4xx carries its route family's error body (docs/errors.md); a refused request
 * stores nothing, in the cluster or the store directory. Seeded: `FUZZ_SEED` replays a run, `FUZZ_WRITE_REQUESTS`
 * sets its size.
 */
import { gzipSync } from 'node:zlib';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureFirstAdmin } from '../../core/auth/users/first-admin.ts';
import { dataSourceKind } from '../../core/resources/data-source/schema.ts';
import { buildFuzzApp } from './fuzz-app.ts';
import { seededRandom } from '../support/seeded-random.ts';
import { envelopeOf, type Envelope } from './envelopes.ts';
import { VALUES } from './values.ts';

const REQUESTS = Number(process.env.FUZZ_WRITE_REQUESTS ?? 3_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'];

interface Route {
  method: string;
  /** fastify's pattern: `:name` parameters, `*` wildcards. */
  url: string;
}

/** The routes of `app.printRoutes({ commonPrefix: false })`: one line per path segment, indented by depth. */
function routesOf(table: string): Route[] {
  const routes: Route[] = [];
  const prefixes: string[] = [];
  for (const line of table.split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const url = (prefixes[depth - 1] ?? '') + match[2]!;
    prefixes[depth] = url;
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, url });
  }
  return routes;
}

/** The error body each route family answers with, besides the framework's own native refusals. */
function familyOf(url: string): Envelope {
  if (/^\/(oauth2|connect)\//.test(url)) return 'OAuth2';
  if (url.startsWith('/api/')) return 'WebMessage';
  if (/^\/(result|jobs|process_graphs|credentials|me|processes|collections)(\/|$)/.test(url)) return 'openEO';
  return 'native';
}

/** Routes a browser posts to, whose refusals are HTML pages for the person using it. */
const PAGES = ['/login', '/logout', '/oauth2/consent'];

/** Sign-in and token endpoints authenticate a client or a form, not the API caller: 401 and 403 are theirs. */
const CLIENT_AUTHENTICATED = /^\/(oauth2|connect|login|logout)(\/|$)/;

const SEGMENTS = ['sample', 'sample', 'sample', 'no-such', 'a'.repeat(101), '%2e%2e', '%zz', '%F0%9D%94%98'];
const KEYS = ['dataset_id', 'start', 'end', 'overwrite', 'process', 'process_graph', 'id', 'name', 'title', 'value'];
/** Hostile values, and ones that name what exists, so that validation past the schema is reached too. */
const BODY_VALUES = [...VALUES, 'sample', 'sample', '2024-01-01', '2024-01-31', '2024-02-30', 'P1D', false];
const MEDIA_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/json; charset=latin1',
  'application/json-patch+json',
  'application/octet-stream',
];

interface FuzzedRequest {
  headers: Record<string, string>;
  payload?: string | Buffer;
  shape: string;
}

function fuzzedBody(next: () => number, template: Record<string, unknown> | undefined): FuzzedRequest {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const json = { 'content-type': 'application/json' };
  // The route's template with one member (or, without a template, a few members) set to a hostile value.
  const object = () => {
    const keys = template ? Object.keys(template) : KEYS;
    const broken = Object.fromEntries(
      Array.from({ length: template ? 1 : 1 + Math.floor(next() * 4) }, () => [pick(keys), pick(BODY_VALUES)]),
    );
    return { ...template, ...broken };
  };
  switch (Math.floor(next() * 11)) {
    case 0:
      return { shape: 'invalid JSON', headers: json, payload: pick(['{"a": ', '{"a": 1,}', '[NaN]', "{'a': 1}", '']) };
    case 1:
      return { shape: 'wrong type', headers: json, payload: JSON.stringify(pick(VALUES)) };
    case 2:
      return { shape: 'huge string', headers: json, payload: JSON.stringify({ [pick(KEYS)]: 'x'.repeat(3_000_000) }) };
    case 3: {
      const depth = pick([100, 5_000, 50_000]);
      const [open, close] = next() < 0.5 ? ['[', ']'] : ['{"a":', '}'];
      return { shape: 'deep nesting', headers: json, payload: open.repeat(depth) + '1' + close.repeat(depth) };
    }
    case 4:
      return {
        shape: 'unknown members',
        headers: json,
        payload: JSON.stringify({ ...object(), ['zz' + pick(KEYS)]: 1 }),
      };
    case 5:
      return {
        shape: 'wrong media type',
        headers: { 'content-type': pick(MEDIA_TYPES) },
        payload: JSON.stringify(object()),
      };
    case 6:
      return {
        shape: 'encoding lie',
        headers: { ...json, 'content-encoding': pick(['gzip', 'deflate', 'br', 'identity', 'x-unknown']) },
        payload: next() < 0.5 ? JSON.stringify(object()) : gzipSync(JSON.stringify(object())),
      };
    case 7: {
      const text = JSON.stringify(object());
      return { shape: 'truncated', headers: json, payload: text.slice(0, Math.floor(text.length * next())) };
    }
    case 8: {
      const text = JSON.stringify(object());
      return {
        shape: 'content-length lie',
        headers: { ...json, 'content-length': String(text.length + 10) },
        payload: text,
      };
    }
    case 9:
      return {
        shape: 'non-UTF-8',
        headers: json,
        payload: Buffer.concat([
          Buffer.from(`{"${pick(KEYS)}": "`),
          Buffer.from([0xff, 0xfe, 0xc0, 0x80]),
          Buffer.from('"}'),
        ]),
      };
    default:
      return { shape: 'mistyped members', headers: json, payload: JSON.stringify(object()) };
  }
}

interface OpenApi {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
}
interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
}

/**
 * A body each route's OpenAPI description accepts, roughly: the required members (strings name the sample), so that
 * a fuzzed body that breaks one member gets past the others to the handler. Keyed like the route table.
 */
function bodyTemplatesOf(document: OpenApi): Map<string, Record<string, unknown>> {
  const resolve = (schema: Schema | undefined): Schema | undefined =>
    schema?.$ref ? resolve(document.components?.schemas?.[schema.$ref.split('/').pop()!]) : schema;
  const valueOf = (input: Schema | undefined, depth: number): unknown => {
    const schema = resolve(input);
    if (!schema || depth > 4) return null;
    if (schema.const !== undefined) return schema.const;
    if (schema.enum) return schema.enum[0];
    const variant = schema.anyOf?.[0] ?? schema.oneOf?.[0];
    if (variant) return valueOf(variant, depth + 1);
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    if (type === 'object' || schema.properties)
      return Object.fromEntries(
        Object.entries(schema.properties ?? {})
          .filter(([name]) => schema.required?.includes(name))
          .map(([name, member]) => [name, valueOf(member, depth + 1)]),
      );
    if (type === 'string') return schema.format?.startsWith('date') ? '2024-01-01' : 'sample';
    if (type === 'boolean') return true;
    if (type === 'integer' || type === 'number') return 1;
    if (type === 'array') return [];
    return null;
  };
  const templates = new Map<string, Record<string, unknown>>();
  for (const [path, item] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(item)) {
      const content = operation.requestBody?.content ?? {};
      const schema = resolve(Object.values(content)[0]?.schema);
      if (!schema?.properties) continue;
      const template = { ...(valueOf(schema, 0) as Record<string, unknown>) };
      for (const name of Object.keys(schema.properties)) template[name] ??= valueOf(schema.properties[name], 1);
      templates.set(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`, template);
    }
  return templates;
}

/** Every file under `dir` with its size and modification time: a refused request must change none. */
async function snapshot(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const lines = await Promise.all(
    entries.map(async (entry) => {
      const path = join(entry.parentPath, entry.name);
      const info = await stat(path).catch(() => undefined);
      return `${path} ${info?.size} ${info?.mtimeMs}`;
    }),
  );
  return lines.sort().join('\n');
}

describe('the write routes under fuzzing as the signed-in admin', () => {
  it(`answer ${REQUESTS} malformed writes without a 5xx, in their family's error body, storing nothing`, async () => {
    const { app, cluster, storageRoot } = await buildFuzzApp();
    const { password } = await ensureFirstAdmin(cluster, 'default');
    const authorization = `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
    const routes = routesOf(app.printRoutes({ commonPrefix: false })).filter((r) => WRITES.includes(r.method));
    expect(routes.length).toBeGreaterThan(20);
    const bodyTemplates = bodyTemplatesOf((await app.inject({ url: '/openapi.json' })).json());

    const next = seededRandom(SEED);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    const storedVersion = async () => (await cluster.list(dataSourceKind)).resourceVersion;
    const statuses = new Map<number, number>();
    const reached = new Set<string>();
    const failures: string[] = [];
    for (let i = 0; i < REQUESTS && failures.length < 20; i++) {
      const route = pick(routes);
      const url = route.url.replace(/:[^/]+|\*/g, () => pick(SEGMENTS));
      const { headers, payload, shape } = fuzzedBody(next, bodyTemplates.get(`${route.method} ${route.url}`));
      const versionBefore = await storedVersion();
      const storeBefore = await snapshot(storageRoot);
      const res = await app.inject({
        method: route.method as 'POST',
        url,
        headers: { ...headers, authorization, prefer: 'respond-async' },
        payload,
      });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (![401, 403].includes(res.statusCode)) reached.add(`${route.method} ${route.url}`);
      const replay = `${route.method} ${url.slice(0, 120)} [${shape}] ${JSON.stringify(headers)} ${String(payload ?? '').slice(0, 80)} -> ${res.statusCode} ${res.body.slice(0, 200)}`;
      if (res.statusCode >= 500) failures.push(replay);
      if (res.statusCode < 400) continue;
      const page = PAGES.includes(route.url) && /^text\/html/.test(String(res.headers['content-type']));
      let body: unknown;
      try {
        body = res.json();
      } catch {
        body = undefined;
      }
      const envelope = envelopeOf(body);
      if (!page && envelope !== 'native' && envelope !== familyOf(route.url))
        failures.push(`not the ${familyOf(route.url)} envelope: ${replay}`);
      if ([401, 403].includes(res.statusCode) && !CLIENT_AUTHENTICATED.test(route.url))
        failures.push(`the admin refused: ${replay}`);
      if ((await storedVersion()) !== versionBefore) failures.push(`the cluster changed: ${replay}`);
      if ((await snapshot(storageRoot)) !== storeBefore) failures.push(`the store changed: ${replay}`);
    }
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    const counts = Object.fromEntries([...statuses].sort());
    expect(failures, `seed ${SEED}; statuses ${JSON.stringify(counts)}`).toEqual([]);
    expect(total).toBe(REQUESTS);
    // The bodies reach the parsers and validators: most answers are their refusals, none an authentication one.
    const refusedByParsers =
      (statuses.get(400) ?? 0) + (statuses.get(413) ?? 0) + (statuses.get(415) ?? 0) + (statuses.get(422) ?? 0);
    expect(refusedByParsers / total, `seed ${SEED}; statuses ${JSON.stringify(counts)}`).toBeGreaterThan(0.5);
    const unreached = routes.map((r) => `${r.method} ${r.url}`).filter((r) => !reached.has(r));
    expect(unreached, `seed ${SEED}: routes every request of which was refused as unauthenticated`).toEqual([]);
  }, 120_000);
});
