/**
 * The `url` feature provider: one GeoJSON FeatureCollection or GeoParquet file at a URL. The format follows the
 * `format` parameter, else the path's extension (`.parquet`, `.geoparquet`: GeoParquet; anything else: GeoJSON).
 */
import { parameter } from '../options.ts';
import { readGeoParquetDocument } from '../../features/geoparquet-read.ts';
import { parseGeoJson } from '../../features/validate.ts';
import { RunError } from '../../runs/errors.ts';
import { fetchSource } from './fetch.ts';
import type { FeatureProvider } from './provider.ts';

const FORMATS = ['geojson', 'geoparquet'] as const;

function formatOf(url: URL, declared: string | undefined): (typeof FORMATS)[number] {
  if (declared === undefined) return /\.(geo)?parquet$/i.test(url.pathname) ? 'geoparquet' : 'geojson';
  if (!(FORMATS as readonly string[]).includes(declared))
    throw new RunError('InvalidParameters', `url provider: format must be one of ${FORMATS.join(', ')}`);
  return declared as (typeof FORMATS)[number];
}

export const urlFeatureProvider: FeatureProvider = {
  name: 'url',
  fetch: async (request) => {
    const { parameters } = request;
    const href = parameter('url', parameters, 'url', 'string');
    let url: URL;
    try {
      url = new URL(href ?? '');
    } catch {
      throw new RunError('InvalidParameters', 'url provider: parameter url must be an absolute http(s) URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new RunError('InvalidParameters', 'url provider: parameter url must be an absolute http(s) URL');
    const format = formatOf(url, parameter('url', parameters, 'format', 'string'));
    const declaredCrs = parameter('url', parameters, 'crs', 'string');
    const bytes = await fetchSource('url', url.href, request);
    if (format === 'geojson') return { document: parseGeoJson(bytes, url.href), origin: url.href, crs: declaredCrs };
    const { document, crs } = await readGeoParquetDocument(bytes, url.href);
    return { document, origin: url.href, crs: declaredCrs ?? crs };
  },
};
