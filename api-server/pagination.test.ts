import { describe, expect, it } from 'vitest';
import type { KindRef } from '../core/cluster/objects.ts';
import { datasetKind } from '../core/resources/dataset/schema.ts';
import { featureCollectionKind } from '../core/resources/feature-collection/schema.ts';
import { ingestionKind } from '../core/resources/ingestion/schema.ts';
import { processingJobKind } from '../core/resources/processing-job/schema.ts';
import { API_VERSION } from '../core/resources/registry.ts';
import { workflowKind } from '../core/resources/workflow/schema.ts';
import { build, type Built } from './test/build.ts';

const meta = (name: string) => ({ name, namespace: 'default' });

const published = { publication: { status: 'published', publishedAt: '2026-11-26T00:00:00Z' } };

/** How each paginated list is filled with one more item, where its items are, and what identifies one. */
interface ListedRoute {
  path: string;
  member: string;
  id(item: Record<string, unknown>): string;
  kind: KindRef;
  object(name: string): Record<string, unknown>;
  status?: Record<string, unknown>;
  /** The catalogue code of a bad limit or token. */
  invalid: { status: 400 | 422; body: Record<string, unknown> };
}

const native = {
  status: 422 as const,
  body: {
    detail: [
      {
        loc: ['query', expect.stringMatching(/^(limit|token)$/)],
        msg: expect.stringMatching(/limit|token/),
        type: 'invalid_value',
      },
    ],
  },
};
const openeo = { status: 400 as const, body: expect.objectContaining({ code: 'PaginationInvalid' }) };

const routes: ListedRoute[] = [
  {
    path: '/datasets',
    member: 'items',
    id: (item) => item.dataset_id as string,
    kind: datasetKind,
    object: (name) => ({
      metadata: meta(name),
      spec: { source: 'sample', datasetName: name, itemType: 'coverage', format: 'zarr' },
    }),
    invalid: native,
  },
  {
    path: '/ingestions',
    member: 'items',
    id: (item) => item.ingestion_id as string,
    kind: ingestionKind,
    object: (name) => ({ metadata: meta(name), spec: { source: 'sample', mode: 'ingestion' } }),
    invalid: native,
  },
  {
    path: '/features',
    member: 'items',
    id: (item) => item.id as string,
    kind: featureCollectionKind,
    object: (name) => ({ metadata: meta(name), spec: { name, idProperty: 'code' } }),
    status: {
      featureCount: 1,
      geometryTypes: ['Point'],
      primaryGeometry: 'geometry',
      crs: 'EPSG:4326',
      extent: {
        spatial: { xmin: 0, ymin: 0, xmax: 1, ymax: 1 },
        spatialWgs84: null,
        temporal: { start: null, end: null },
      },
      lastUpdated: '2026-11-26T00:00:00Z',
      path: 'features/x/v1.parquet',
    },
    invalid: native,
  },
  {
    path: '/collections',
    member: 'collections',
    id: (item) => item.id as string,
    kind: datasetKind,
    object: (name) => ({
      metadata: meta(name),
      spec: { source: 'sample', datasetName: name, itemType: 'coverage', format: 'zarr' },
    }),
    status: published,
    invalid: openeo,
  },
  {
    path: '/jobs',
    member: 'jobs',
    id: (item) => item.id as string,
    kind: processingJobKind,
    object: (name) => ({ metadata: meta(name), spec: { process: { process_graph: {} } } }),
    invalid: openeo,
  },
  {
    path: '/process_graphs',
    member: 'processes',
    id: (item) => item.id as string,
    kind: workflowKind,
    object: (name) => ({ metadata: meta(name), spec: { id: name.replace(/-/g, '_'), processGraph: {} } }),
    invalid: openeo,
  },
];

async function add(built: Built, route: ListedRoute, name: string) {
  const object = { apiVersion: API_VERSION, kind: route.kind.kind, ...route.object(name) };
  await built.cluster.create(route.kind, object as never);
  if (route.status)
    await built.cluster.patchStatus(route.kind, name, { type: 'merge', body: { status: route.status } }, 'default');
}

type Listing = Record<string, unknown> & { links: { href: string; rel: string }[] };

async function get(built: Built, url: string, headers: Record<string, string> = {}) {
  const response = await built.app.inject({ url, headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Listing;
}

const linked = (listing: Listing, rel: string) => listing.links.find((l) => l.rel === rel)?.href;
/** The path and query of an absolute link, to inject. */
const local = (href: string) => `${new URL(href).pathname}${new URL(href).search}`;

describe.each(routes)('pagination of GET $path', (route) => {
  const ids = (listing: Listing) => (listing[route.member] as Record<string, unknown>[]).map(route.id);

  it('pages concatenate to the whole list; an item created between pages neither repeats nor hides another', async () => {
    const built = await build();
    for (const name of ['item-b', 'item-d', 'item-f', 'item-h', 'item-j']) await add(built, route, name);
    const whole = ids(await get(built, route.path));
    expect(whole).toHaveLength(5);

    const seen: string[] = [];
    let page = await get(built, `${route.path}?limit=2`);
    expect(ids(page)).toEqual(whole.slice(0, 2));
    expect(linked(page, 'prev')).toBeUndefined();
    seen.push(...ids(page));
    // One item sorts before the cursor in any order, one after it in both orders of the lists.
    await add(built, route, 'item-a');
    await add(built, route, 'item-z');
    for (let next = linked(page, 'next'); next !== undefined; next = linked(page, 'next')) {
      page = await get(built, local(next));
      seen.push(...ids(page));
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => whole.includes(id))).toEqual(whole);
    expect(linked(page, 'first')).toBeDefined();

    const back = await get(built, local(linked(page, 'prev')!));
    expect(ids(back)).toHaveLength(2);
    expect(ids(back).at(-1)).toBe(seen[seen.length - ids(page).length - 1]);
  });

  it('answers its status with the documented body for a bad limit or token', async () => {
    const built = await build();
    await add(built, route, 'item-a');
    for (const query of ['limit=0', 'limit=1001', 'limit=two', 'limit=1.5', 'token=bm90LWEtdG9rZW4', 'token=%25%25']) {
      const response = await built.app.inject({ url: `${route.path}?${query}` });
      expect([response.statusCode, response.json()], query).toEqual([route.invalid.status, route.invalid.body]);
    }
    expect(ids(await get(built, `${route.path}?limit=`))).toHaveLength(1);
  });

  it('is documented in the OpenAPI description: limit, token and the status of a bad one', async () => {
    const built = await build();
    const get = (await built.app.inject({ url: '/openapi.json' })).json().paths[route.path].get;
    expect(get.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['limit', 'token']));
    expect(Object.keys(get.responses)).toContain(String(route.invalid.status));
  });

  it('links absolute URLs under the proxy that forwards the request', async () => {
    const built = await build();
    for (const name of ['item-a', 'item-b']) await add(built, route, name);
    const page = await get(built, `${route.path}?limit=1`, {
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'climate.example.org',
      'x-forwarded-prefix': '/stratus',
    });
    expect(linked(page, 'next')).toMatch(
      new RegExp(`^https://climate\\.example\\.org/stratus${route.path}\\?limit=1&token=`),
    );
  });
});

describe('HTML pages of the lists', () => {
  it('show a hundred rows without limit, with next, previous and first page links that stay HTML', async () => {
    const built = await build();
    const route = routes[0]!;
    for (let i = 0; i < 101; i++) await add(built, route, `item-${String(i).padStart(3, '0')}`);
    const first = await built.app.inject({ url: '/datasets', headers: { accept: 'text/html' } });
    expect(first.body.match(/<tr>/g)).toHaveLength(101);
    const next = /<a rel="next" href="([^"]+)">Next page<\/a>/.exec(first.body)?.[1];
    expect(next).toMatch(/^http:\/\/localhost(:\d+)?\/datasets\?token=/);
    expect(first.body).not.toContain('rel="prev"');
    const second = await built.app.inject({
      url: local(next!.replace(/&amp;/g, '&')),
      headers: { accept: 'text/html' },
    });
    expect(second.body).toContain('item-100');
    expect(second.body).toContain('rel="prev"');
    expect(second.body).toContain('rel="first"');
    expect(second.body).not.toContain('rel="next"');
  });

  it('keep f=html in the links of the collection list', async () => {
    const built = await build();
    for (const name of ['item-a', 'item-b']) await add(built, routes[3]!, name);
    const page = (await built.app.inject({ url: '/collections?f=html&limit=1' })).body;
    expect(page).toContain('item-a');
    expect(page).not.toContain('item-b');
    expect(/<a rel="next" href="([^"]+)">/.exec(page)?.[1]).toMatch(/\/collections\?f=html&amp;limit=1&amp;token=/);
  });
});
