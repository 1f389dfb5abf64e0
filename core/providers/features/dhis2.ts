/**
 * The `dhis2` feature provider: organisation units of a DHIS2-compatible API (2.32 or later, where units carry a
 * GeoJSON `geometry`), read page by page from `/api/organisationUnits.json`, optionally only some hierarchy
 * levels. Each unit becomes a feature with `id`, `code`, `name`, `level` and `parent_id`; a unit without
 * geometry is dropped and reported by the validation like any empty geometry.
 */
import { parameter } from '../options.ts';
import { RunError } from '../../runs/errors.ts';
import { fetchSource } from './fetch.ts';
import type { FeatureProvider, FeatureRequest } from './provider.ts';

const FIELDS = 'id,code,name,level,parent[id],geometry';
const DEFAULT_PAGE_SIZE = 500;

interface OrgUnit {
  id: string;
  code?: string;
  name?: string;
  level?: number;
  parent?: { id?: string };
  geometry?: unknown;
}

interface OrgUnitPage {
  pager?: { page?: number; pageCount?: number };
  organisationUnits: OrgUnit[];
}

const invalidParameter = (message: string) => new RunError('InvalidParameters', `dhis2 provider: ${message}`);

function levelsOf(parameters: Record<string, unknown>): number[] {
  const levels = parameters.levels ?? [];
  if (!Array.isArray(levels) || !levels.every((l) => Number.isInteger(l) && l >= 1))
    throw invalidParameter('levels must be a list of hierarchy levels (integers from 1)');
  return levels as number[];
}

function pageUrl(baseUrl: string, levels: number[], pageSize: number, page: number): string {
  const url = new URL('api/organisationUnits.json', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  url.searchParams.set('fields', FIELDS);
  url.searchParams.set('paging', 'true');
  url.searchParams.set('pageSize', String(pageSize));
  url.searchParams.set('page', String(page));
  if (levels.length > 0) url.searchParams.set('filter', `level:in:[${levels.join(',')}]`);
  return url.href;
}

function parsePage(bytes: Uint8Array, url: string): OrgUnitPage {
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch (err) {
    throw new RunError('InvalidResponse', `${url} is not JSON: ${(err as Error).message}`);
  }
  const page = body as OrgUnitPage;
  if (
    typeof body !== 'object' ||
    body === null ||
    !Array.isArray(page.organisationUnits) ||
    !page.organisationUnits.every((u) => typeof u === 'object' && u !== null && typeof u.id === 'string')
  )
    throw new RunError('InvalidResponse', `${url} is not a page of organisation units with ids`);
  return page;
}

const featureOf = (unit: OrgUnit) => ({
  type: 'Feature',
  properties: {
    id: unit.id,
    code: unit.code ?? null,
    name: unit.name ?? null,
    level: unit.level ?? null,
    parent_id: unit.parent?.id ?? null,
  },
  geometry: unit.geometry ?? null,
});

async function fetchAll(request: FeatureRequest, baseUrl: string) {
  const levels = levelsOf(request.parameters);
  const pageSize = parameter('dhis2', request.parameters, 'pageSize', 'number') ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 10_000)
    throw invalidParameter('pageSize must be an integer from 1 to 10000');
  const features = [];
  for (let page = 1; ; page++) {
    const url = pageUrl(baseUrl, levels, pageSize, page);
    const body = parsePage(await fetchSource('dhis2', url, request), url);
    features.push(...body.organisationUnits.map(featureOf));
    // A server that ignores paging answers everything at once, without a pager.
    const pageCount = body.pager?.pageCount ?? page;
    if (page >= pageCount || body.organisationUnits.length === 0) return features;
  }
}

export const dhis2FeatureProvider: FeatureProvider = {
  name: 'dhis2',
  tokenScheme: 'ApiToken',
  fetch: async (request) => {
    const baseUrl = parameter('dhis2', request.parameters, 'baseUrl', 'string');
    if (!baseUrl || !/^https?:\/\//.test(baseUrl))
      throw invalidParameter('baseUrl must be the absolute http(s) URL of the DHIS2 instance');
    const features = await fetchAll(request, baseUrl);
    return {
      document: { type: 'FeatureCollection', features },
      origin: `${baseUrl} organisation units`,
      // DHIS2 stores geometry in WGS 84 longitude/latitude.
      crs: 'EPSG:4326',
    };
  },
};
