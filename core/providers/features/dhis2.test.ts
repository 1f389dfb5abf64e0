import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream, type Upstream } from '../../../test/support/upstream.ts';
import { prepareFeatures } from '../../features/prepare.ts';
import { dhis2FeatureProvider } from './dhis2.ts';
import type { FeatureRequest } from './provider.ts';

const square = (x: number, y: number) => ({
  type: 'Polygon',
  coordinates: [
    [
      [x, y],
      [x + 1, y],
      [x + 1, y + 1],
      [x, y + 1],
      [x, y],
    ],
  ],
});
const units = [
  { id: 'O6uvpzGd5pu', code: 'OU_264', name: 'Bo', level: 2, parent: { id: 'ImspTQPwCqd' }, geometry: square(-12, 7) },
  {
    id: 'fdc6uOvgoji',
    code: 'OU_193',
    name: 'Bombali',
    level: 2,
    parent: { id: 'ImspTQPwCqd' },
    geometry: square(-12, 9),
  },
  {
    id: 'lc3eMKXaEfw',
    code: 'OU_197',
    name: 'Bonthe',
    level: 2,
    parent: { id: 'ImspTQPwCqd' },
    geometry: square(-13, 7),
  },
  { id: 'jUb8gELQApl', name: 'Kailahun', level: 2, parent: { id: 'ImspTQPwCqd' } },
  {
    id: 'PMa2VCrupOd',
    code: 'OU_211',
    name: 'Kambia',
    level: 2,
    parent: { id: 'ImspTQPwCqd' },
    geometry: square(-13, 9),
  },
];
const PAGE_SIZE = 2;

/** Files of a DHIS2-like server: `/api/organisationUnits.json?...&page=N` answers `pages/<N>.json`. */
async function writePages(dir: string) {
  await mkdir(join(dir, 'pages'), { recursive: true });
  const pageCount = Math.ceil(units.length / PAGE_SIZE);
  for (let page = 1; page <= pageCount; page++) {
    const body = {
      pager: { page, pageCount, total: units.length, pageSize: PAGE_SIZE },
      organisationUnits: units.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
    };
    await writeFile(join(dir, 'pages', `${page}.json`), JSON.stringify(body));
  }
  await writeFile(join(dir, 'pages', 'broken.json'), JSON.stringify({ organisationUnits: [{ name: 'no id' }] }));
}
const fileFor = (broken: boolean) => (url: URL) =>
  url.pathname === '/api/organisationUnits.json'
    ? `pages/${broken ? 'broken' : url.searchParams.get('page')}.json`
    : url.pathname;

let dir: string;
let open: Upstream;
let withToken: Upstream;
let withLogin: Upstream;
let broken: Upstream;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dhis2-'));
  await writePages(dir);
  open = await startUpstream(dir, undefined, { fileFor: fileFor(false) });
  withToken = await startUpstream(dir, { authorization: 'ApiToken d2pat_abc123' }, { fileFor: fileFor(false) });
  withLogin = await startUpstream(dir, { user: 'admin', password: 'district' }, { fileFor: fileFor(false) });
  broken = await startUpstream(dir, undefined, { fileFor: fileFor(true) });
});
afterAll(async () => {
  for (const server of [open, withToken, withLogin, broken]) await server.close();
  await rm(dir, { recursive: true, force: true });
});

const request = (baseUrl: string, parameters: Record<string, unknown> = {}, extra: Partial<FeatureRequest> = {}) => ({
  parameters: { baseUrl, pageSize: PAGE_SIZE, levels: [2], attempts: 2, backoffMs: 5, timeoutMs: 300, ...parameters },
  bbox: [-13.5, 6.9, -10.2, 10] as [number, number, number, number],
  signal: new AbortController().signal,
  ...extra,
});
const refresh = async (req: FeatureRequest) => {
  const fetched = await dhis2FeatureProvider.fetch(req);
  return prepareFeatures(fetched.document, { origin: fetched.origin, idProperty: 'id', sourceCrs: fetched.crs });
};

describe('the dhis2 feature provider', () => {
  it('reads every page of the requested levels, with geometry, and drops units without geometry', async () => {
    const { features, report } = await refresh(request(open.url));
    expect(features.map((f) => f.properties.id)).toEqual(['O6uvpzGd5pu', 'fdc6uOvgoji', 'lc3eMKXaEfw', 'PMa2VCrupOd']);
    expect(features[0]).toEqual({
      geometry: square(-12, 7),
      properties: { id: 'O6uvpzGd5pu', code: 'OU_264', name: 'Bo', level: 2, parent_id: 'ImspTQPwCqd' },
    });
    expect(report).toEqual({
      received: 5,
      stored: 4,
      repairs: [{ feature: '#3 (id "jUb8gELQApl")', action: 'dropped-empty-geometry', count: 1 }],
    });
    const pages = open.requests.map((r) => new URL(r.split(' ')[1]!, 'http://x').searchParams);
    expect(pages.map((p) => p.get('page'))).toEqual(['1', '2', '3']);
    expect(pages[0]!.get('fields')).toBe('id,code,name,level,parent[id],geometry');
    expect(pages[0]!.get('filter')).toBe('level:in:[2]');
    expect(pages[0]!.get('pageSize')).toBe('2');
  });

  it('sends a personal access token as ApiToken', async () => {
    await expect(refresh(request(withToken.url))).rejects.toMatchObject({ code: 'AuthenticationFailed' });
    const { features } = await refresh(
      request(withToken.url, {}, { credentials: { token: 'd2pat_abc123', scheme: 'ApiToken' } }),
    );
    expect(features).toHaveLength(4);
  });

  it('sends basic credentials', async () => {
    const { features } = await refresh(
      request(withLogin.url, {}, { credentials: { username: 'admin', password: 'district' } }),
    );
    expect(features).toHaveLength(4);
  });

  it('retries a page that answers 500 once', async () => {
    open.fail('/api/organisationUnits.json', 'status-500');
    expect((await refresh(request(open.url))).features).toHaveLength(4);
  });

  it.each([
    ['answers 500 on every attempt', ['status-500', 'status-500'] as const, /HTTP 500/],
    ['never answers', ['hang', 'hang'] as const, /no answer within 300 ms/],
  ])('fails with UpstreamUnavailable when the server %s', async (_name, faults, message) => {
    open.fail('/api/organisationUnits.json', ...faults);
    await expect(refresh(request(open.url))).rejects.toMatchObject({
      code: 'UpstreamUnavailable',
      message: expect.stringMatching(message),
    });
  });

  it('fails with InvalidResponse for a page that is not organisation units with ids', async () => {
    await expect(refresh(request(broken.url))).rejects.toMatchObject({ code: 'InvalidResponse' });
  });

  it.each([
    ['no baseUrl', { baseUrl: undefined }],
    ['a relative baseUrl', { baseUrl: 'play.dhis2.org' }],
    ['levels that are not integers', { levels: ['district'] }],
    ['a page size of 0', { pageSize: 0 }],
  ])('refuses %s as InvalidParameters', async (_name, parameters) => {
    await expect(dhis2FeatureProvider.fetch(request(open.url, parameters))).rejects.toMatchObject({
      code: 'InvalidParameters',
    });
  });
});
