import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../core/cluster/port.ts';
import { dataSourceKind } from '../../core/resources/data-source/schema.ts';
import { API_VERSION } from '../../core/resources/registry.ts';
import { build } from '../test/build.ts';

/**
 * Spec 1: a path, query or body that fails validation answers 422 with `HTTPValidationError`, whether the route's
 * schema or its handler finds the failure. One row per kind of failure and route family of the native API.
 */

async function historicalSource(cluster: Cluster) {
  await cluster.create(dataSourceKind, {
    apiVersion: API_VERSION,
    kind: 'DataSource',
    metadata: { name: 'history', namespace: 'default' },
    spec: {
      datasetName: 'History',
      itemType: 'coverage',
      periodType: 'daily',
      provider: { name: 'sample' },
      temporalDirection: 'past',
    },
  });
}

interface Case {
  method: 'GET' | 'POST';
  url: string;
  /** A raw JSON text, sent as `application/json`. */
  body?: string;
  loc: (string | number)[];
  type?: string;
  msg?: RegExp;
}

const cases: [string, Case][] = [
  // A body that is not JSON.
  [
    'ingestions: a body that is not JSON',
    { method: 'POST', url: '/ingestions', body: '{"dataset_id":', loc: ['body'], type: 'json_invalid' },
  ],
  [
    'ingestions: an empty JSON body',
    { method: 'POST', url: '/ingestions', body: '', loc: ['body'], type: 'json_invalid' },
  ],
  [
    'sync: a body that is not JSON',
    { method: 'POST', url: '/sync/history', body: '[1,', loc: ['body'], type: 'json_invalid' },
  ],
  [
    'features: a body that is not JSON',
    { method: 'POST', url: '/features/districts/refresh', body: 'nope', loc: ['body'], type: 'json_invalid' },
  ],
  [
    'exports: a body that is not JSON',
    { method: 'POST', url: '/exports/dhis2', body: '{job_id}', loc: ['body'], type: 'json_invalid' },
  ],
  // A JSON body that breaks the route's schema.
  [
    'ingestions: a body member of the wrong type',
    { method: 'POST', url: '/ingestions', body: '{"dataset_id":5}', loc: ['body', 'dataset_id'] },
  ],
  [
    'sync: an unknown body member',
    { method: 'POST', url: '/sync/history', body: '{"until":"2024-01-01"}', loc: ['body'] },
  ],
  ['exports: a body without its job', { method: 'POST', url: '/exports/dhis2', body: '{}', loc: ['body', 'job_id'] }],
  // A period that does not parse or does not make a range.
  [
    'ingestions: a start that is no period',
    {
      method: 'POST',
      url: '/ingestions',
      body: '{"dataset_id":"history","start":"2024-13-01"}',
      loc: ['body', 'start'],
      msg: /not a daily period/,
    },
  ],
  [
    'ingestions: an end in another period form',
    {
      method: 'POST',
      url: '/ingestions',
      body: '{"dataset_id":"history","start":"2024-01-01","end":"2024-02"}',
      loc: ['body', 'end'],
      msg: /expected the form 2024-01-31/,
    },
  ],
  [
    'ingestions: an end before the start',
    {
      method: 'POST',
      url: '/ingestions',
      body: '{"dataset_id":"history","start":"2024-02-01","end":"2024-01-01"}',
      loc: ['body', 'end'],
      msg: /before start/,
    },
  ],
  [
    'ingestions: no start for a historical source',
    {
      method: 'POST',
      url: '/ingestions',
      body: '{"dataset_id":"history"}',
      loc: ['body', 'start'],
      msg: /start is required/,
    },
  ],
  // Pagination parameters out of range or never issued.
  [
    'datasets: a limit of 0',
    { method: 'GET', url: '/datasets?limit=0', loc: ['query', 'limit'], msg: /from 1 to 1000/ },
  ],
  ['datasets: a token never issued', { method: 'GET', url: '/datasets?token=nope', loc: ['query', 'token'] }],
  ['ingestions: a limit that is no number', { method: 'GET', url: '/ingestions?limit=ten', loc: ['query', 'limit'] }],
  ['features: a token never issued', { method: 'GET', url: '/features?token=nope', loc: ['query', 'token'] }],
  [
    'exports: a changelog pageSize past 1000',
    { method: 'GET', url: '/exports/dhis2/changelog?pageSize=1001', loc: ['query', 'pageSize'] },
  ],
  // Store keys that could leave the store, refused before the dataset is looked up.
  [
    'zarr: a key with encoded .. segments and slashes',
    { method: 'GET', url: '/zarr/sample/value/%2e%2e%2f%2e%2e%2fcluster', loc: ['path', '*'], msg: /not a key inside/ },
  ],
  ['zarr: a listing with an empty segment', { method: 'GET', url: '/zarr/sample/value//', loc: ['path', '*'] }],
  ['zarr: a key with a backslash', { method: 'GET', url: '/zarr/sample/..%5Cx', loc: ['path', '*'] }],
  [
    'icechunk: a repository path with a .. segment',
    { method: 'GET', url: '/icechunk/sample/%2e%2e%2fother/repo', loc: ['path', '*'], msg: /not a key inside/ },
  ],
  [
    'icechunk listing: a prefix outside the repositories',
    { method: 'GET', url: '/?list-type=2&prefix=elsewhere/', loc: ['query', 'prefix'] },
  ],
  [
    'icechunk listing: a prefix with a .. segment',
    { method: 'GET', url: '/?list-type=2&prefix=icechunk/sample/%2e%2e/x/', loc: ['query', 'prefix'] },
  ],
];

describe('validation failures of the native API', () => {
  it.each(cases)('%s answers 422 with HTTPValidationError', async (_name, c) => {
    const { app, cluster } = await build();
    await historicalSource(cluster);
    const res = await app.inject({
      method: c.method,
      url: c.url,
      ...(c.body === undefined ? {} : { body: c.body, headers: { 'content-type': 'application/json' } }),
    });
    expect(res.statusCode).toBe(422);
    const { detail } = res.json() as { detail: { loc: unknown[]; msg: unknown; type: unknown }[] };
    expect(detail).toEqual([
      {
        loc: c.loc,
        msg: c.msg ? expect.stringMatching(c.msg) : expect.any(String),
        type: c.type ?? expect.any(String),
      },
    ]);
  });

  it('keeps openEO’s 400 PaginationInvalid on the openEO lists', async () => {
    const { app } = await build();
    const res = await app.inject({ url: '/collections?limit=0' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      id: 'PaginationInvalid',
      code: 'PaginationInvalid',
      message: expect.stringMatching(/from 1 to 1000/),
      links: [],
    });
  });
});
