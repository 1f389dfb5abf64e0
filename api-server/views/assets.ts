import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** A static file of the HTML pages, held in memory: a few hundred kilobytes in all. */
export interface Asset {
  bytes: Buffer;
  contentType: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.json': 'application/json',
};

const packageDir = (name: string) => dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
const leaflet = join(packageDir('leaflet'), 'dist');
const own = join(import.meta.dirname, 'assets');
/** Country outlines at 1:50 million (world-atlas, TopoJSON), the map's context without a basemap or network. */
export const OUTLINES_ASSET = 'world-atlas/countries-50m.json';

/** Served name → file: the pages' own scripts and stylesheet, and Leaflet's build from npm with its images. */
const FILES: Record<string, string> = {
  'stratus.css': join(own, 'stratus.css'),
  'map.js': join(own, 'map.js'),
  'runs.js': join(own, 'runs.js'),
  'home.js': join(own, 'home.js'),
  'leaflet/leaflet.js': join(leaflet, 'leaflet.js'),
  'leaflet/leaflet.css': join(leaflet, 'leaflet.css'),
  'topojson-client/topojson-client.min.js': join(packageDir('topojson-client'), 'dist', 'topojson-client.min.js'),
  [OUTLINES_ASSET]: join(packageDir('world-atlas'), 'countries-50m.json'),
  ...Object.fromEntries(
    ['layers.png', 'layers-2x.png', 'marker-icon.png', 'marker-icon-2x.png', 'marker-shadow.png'].map((name) => [
      `leaflet/images/${name}`,
      join(leaflet, 'images', name),
    ]),
  ),
};

export const ASSETS: ReadonlyMap<string, Asset> = new Map(
  Object.entries(FILES).map(([name, path]) => [
    name,
    { bytes: readFileSync(path), contentType: TYPES[path.slice(path.lastIndexOf('.'))]! },
  ]),
);

/**
 * One digest of every asset names this build's set: URLs carry it, so a browser may keep a file for a year and a
 * new build is fetched afresh. One digest for all, not one per file, because Leaflet's stylesheet finds its images
 * by relative URLs.
 */
export const ASSETS_VERSION = (() => {
  const hash = createHash('sha256');
  for (const [name, asset] of ASSETS) hash.update(name).update(asset.bytes);
  return hash.digest('hex').slice(0, 16);
})();

/** The URL of an asset of this build. */
export function assetUrl(name: string): string {
  if (!ASSETS.has(name)) throw new Error(`${name} is not an asset`);
  return `/assets/${ASSETS_VERSION}/${name}`;
}
