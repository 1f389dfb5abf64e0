/**
 * A vector cube (after `aggregate_spatial`, or `load_features`) as a file: GeoJSON or GeoParquet, one feature per
 * geometry with its properties and a property per cell of the other dimensions, or CSV, one row per cell (long
 * format: the geometry's label, a column per other dimension, the value), the shape spreadsheets and DHIS2 imports
 * take.
 */
import type { DataCube } from '../cube/cube.ts';
import { stridesOf } from '../cube/grid.ts';
import { materialize } from '../cube/read.ts';
import { ProcessingError } from '../errors.ts';
import { crsKey } from '../values/crs.ts';
import { STORED_CRS } from '../../features/crs.ts';
import type { Feature } from '../../features/geometry.ts';
import { BBOX_COLUMN, encodeGeoParquet, GEOMETRY_COLUMN } from '../../features/geoparquet.ts';

interface VectorCells {
  geometry: number;
  values: ArrayLike<number>;
  strides: number[];
}

export async function vectorCells(cube: DataCube, format: string, maxCells: number, signal?: AbortSignal) {
  const geometry = cube.dimensions.findIndex((d) => d.type === 'geometry');
  if (geometry < 0 || !cube.metadata.geometries)
    throw new ProcessingError('FormatUnsuitable', `Only a vector cube (of geometries) can be written as ${format}.`);
  const values = await materialize(cube, maxCells, signal);
  return { geometry, values, strides: stridesOf(cube.shape) } satisfies VectorCells;
}

/** Every combination of labels of the dimensions other than the geometry, with its offset in a geometry's cells. */
export function otherCells(cube: DataCube, { geometry, strides }: VectorCells) {
  const others = cube.dimensions.map((d, i) => ({ d, i })).filter(({ i }) => i !== geometry);
  let cells: { labels: string[]; offset: number }[] = [{ labels: [], offset: 0 }];
  for (const { d, i } of others)
    cells = cells.flatMap((c) =>
      d.labels.map((label, k) => ({ labels: [...c.labels, String(label)], offset: c.offset + k * strides[i]! })),
    );
  return { names: others.map(({ d }) => d.name), cells };
}

/** What names each geometry of a vector cube: its feature's id (a collection's `idProperty`), else its label. */
export function featureIds(cube: DataCube, geometry: number): string[] {
  const features = cube.metadata.geometries!;
  return cube.dimensions[geometry]!.labels.map((label, g) => String(features[g]?.id ?? label));
}

const valueOf = (v: number, boolean: boolean) => (Number.isNaN(v) ? null : boolean ? v === 1 : v);

/** The cube's features, each with its properties and a property per cell named by its labels (`t|band`). */
async function featuresWithValues(cube: DataCube, format: string, maxCells: number, signal?: AbortSignal) {
  const found = await vectorCells(cube, format, maxCells, signal);
  const { cells } = otherCells(cube, found);
  const boolean = cube.metadata.cellType === 'boolean';
  const labels = cube.dimensions[found.geometry]!.labels;
  return cube.metadata.geometries!.map((feature, g) => {
    const base = g * found.strides[found.geometry]!;
    const values = Object.fromEntries(
      // A single cell is `value`.
      cells.map((c) => [c.labels.join('|') || 'value', valueOf(found.values[base + c.offset]!, boolean)]),
    );
    return { id: labels[g]!, geometry: feature.geometry, properties: { ...feature.properties, ...values } };
  });
}

export async function vectorGeoJson(cube: DataCube, maxCells: number, signal?: AbortSignal): Promise<string> {
  const features = await featuresWithValues(cube, 'GeoJSON', maxCells, signal);
  return JSON.stringify({ type: 'FeatureCollection', features: features.map((f) => ({ type: 'Feature', ...f })) });
}

/** GeoParquet 1.1 as the stores write it (`core/features/geoparquet.ts`): features of EPSG:4326 geometries. */
export async function vectorGeoParquet(cube: DataCube, maxCells: number, signal?: AbortSignal): Promise<Uint8Array> {
  const geometry = cube.dimensions.find((d) => d.type === 'geometry');
  if (geometry && crsKey(geometry.crs) !== STORED_CRS)
    throw new ProcessingError('FormatUnsuitable', 'Only geometries in EPSG:4326 can be written as Parquet.');
  const features = await featuresWithValues(cube, 'Parquet', maxCells, signal);
  if (features.some((f) => f.geometry === null))
    throw new ProcessingError('FormatUnsuitable', 'A feature without a geometry cannot be written as Parquet.');
  const reserved = [GEOMETRY_COLUMN, BBOX_COLUMN].find((name) => features.some((f) => name in f.properties));
  if (reserved)
    throw new ProcessingError('FormatUnsuitable', `A property named '${reserved}' collides with a GeoParquet column.`);
  // The geometry's label first, as `feature_id` (GeoJSON's feature id), then the properties and values.
  const rows = features.map(({ id, geometry: g, properties }) => ({
    geometry: g!,
    properties: { feature_id: id, ...properties } as Feature['properties'],
  }));
  return encodeGeoParquet(rows).bytes;
}

/** A CSV field, quoted when it must be (RFC 4180). */
export const field = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

export async function vectorCsv(cube: DataCube, maxCells: number, signal?: AbortSignal): Promise<string> {
  const found = await vectorCells(cube, 'CSV', maxCells, signal);
  const { names, cells } = otherCells(cube, found);
  const boolean = cube.metadata.cellType === 'boolean';
  const geometryDimension = cube.dimensions[found.geometry]!;
  const rows = [[geometryDimension.name, ...names, 'value'].map(field).join(',')];
  geometryDimension.labels.forEach((label, g) => {
    const base = g * found.strides[found.geometry]!;
    for (const c of cells) {
      const value = valueOf(found.values[base + c.offset]!, boolean);
      rows.push([String(label), ...c.labels, value === null ? '' : String(value)].map(field).join(','));
    }
  });
  return `${rows.join('\r\n')}\r\n`;
}
