/**
 * Where cubes come from and go to: `load_collection` (through the collection resolver, then filtered to the
 * requested extents and bands whatever the resolver returned), `load_geojson` and Stratus's `load_features`
 * (vector cubes of features, with properties as a dimension), `create_data_cube` is in dimensions.ts, and
 * `save_result` (through the result sink).
 */
import { isCube, type DataCube } from '../../cube/cube.ts';
import type { Dimension } from '../../cube/dimension.ts';
import { memoryCube } from '../../cube/memory.ts';
import { ProcessingError, invalidArgument } from '../../errors.ts';
import type { Callback } from '../../evaluate/callback.ts';
import type { Args, ProcessContext, ProcessDefinition } from '../../process.ts';
import type { BoundingBox, CollectionRequest, CollectionResolver } from '../../services.ts';
import { parseInstant } from '../../values/datetime.ts';
import { featuresOfArgument, type MaybeEmptyFeature } from '../../values/geojson.ts';
import type { Label } from '../../values/labeled-array.ts';
import { filterBbox, filterTemporal } from './filters.ts';
import { filterSpatial } from './masks.ts';
import { selectIndices } from './helpers.ts';
import { geometryLabels } from './spatial.ts';

/**
 * The version a property filter on `version` selects: the first of the collection's versions (the served one, then
 * newest first) the filter accepts. None accepted is NoDataAvailable, naming the versions there are.
 */
async function selectVersion(
  resolver: CollectionResolver & Required<Pick<CollectionResolver, 'versions'>>,
  id: string,
  filter: Callback,
): Promise<string | undefined> {
  const versions = await resolver.versions(id);
  if (!versions) return undefined;
  for (const version of versions) if ((await filter.call({ value: version })) === true) return version;
  throw new ProcessingError(
    'NoDataAvailable',
    `No retained version of collection '${id}' matches the property filter on 'version' (retained: ${versions.join(', ') || 'none'}).`,
  );
}

async function loadCollection(
  { id, spatial_extent, temporal_extent, bands, properties }: Args,
  context: ProcessContext,
): Promise<DataCube> {
  const resolver = context.services.collections;
  const extent = spatial_extent as BoundingBox | Record<string, unknown> | null;
  const polygons =
    extent && !('west' in extent) ? featuresOfArgument(extent, 'load_collection', 'spatial_extent') : null;
  const interval = temporal_extent as (string | null)[] | null;
  const request: CollectionRequest = {
    spatialExtent: polygons ?? (extent as BoundingBox | null),
    temporalExtent: interval
      ? (interval.map((v) => (v === null ? null : (parseInstant(v) ?? null))) as [number | null, number | null])
      : null,
    bands: bands as string[] | null,
  };
  const filters = (properties as Record<string, Callback> | null) ?? {};
  if (filters.version && resolver?.versions)
    request.version = await selectVersion(
      resolver as Parameters<typeof selectVersion>[0],
      id as string,
      filters.version,
    );
  const opened = resolver ? await resolver.open(id as string, request, context.signal) : undefined;
  if (!opened) throw new ProcessingError('CollectionNotFound', `Collection '${id as string}' does not exist.`);
  let cube = opened.cube;
  for (const [name, condition] of Object.entries(filters)) {
    const verdict = await condition.call({ value: opened.properties?.[name] ?? null });
    if (verdict !== true)
      throw new ProcessingError('NoDataAvailable', `No data matches the property filter on '${name}'.`);
  }
  if (interval) cube = filterTemporal(cube, interval, null);
  if (polygons) cube = filterSpatial(cube, extent, 'load_collection', 'spatial_extent');
  else if (extent) cube = filterBbox(cube, extent as BoundingBox);
  if (bands) {
    const axis = cube.dimensions.findIndex((d) => d.type === 'bands');
    if (axis < 0) throw invalidArgument('load_collection', 'bands', 'the collection has no bands dimension');
    const labels = cube.dimensions[axis]!.labels;
    const missing = (bands as string[]).find((b) => !labels.includes(b));
    if (missing) throw invalidArgument('load_collection', 'bands', `the collection has no band '${missing}'`);
    cube = selectIndices(
      cube,
      axis,
      (bands as string[]).map((b) => labels.indexOf(b)),
    );
  }
  if (cube.cells === 0)
    throw new ProcessingError('NoDataAvailable', 'There is no data available for the given extents.');
  return cube;
}

/** A vector cube of features: the geometry dimension, and a `properties` dimension when properties are asked. */
export function vectorCube(features: MaybeEmptyFeature[], crs: string, properties: readonly string[]): DataCube {
  const geometry: Dimension = { name: 'geometry', type: 'geometry', labels: geometryLabels(features), crs };
  const cell = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : NaN);
  if (properties.length === 0)
    return memoryCube({
      dimensions: [geometry],
      data: new Float64Array(features.length).fill(NaN),
      geometries: features,
    });
  let labels: Label[];
  let values: (f: MaybeEmptyFeature) => number[];
  if (properties.length === 1 && features.some((f) => Array.isArray(f.properties[properties[0]!]))) {
    const name = properties[0]!;
    const width = Math.max(
      ...features.map((f) => (Array.isArray(f.properties[name]) ? (f.properties[name] as unknown[]).length : 1)),
    );
    labels = Array.from({ length: width }, (_, i) => i);
    values = (f) => {
      const v = f.properties[name];
      return labels.map((_, i) => cell(Array.isArray(v) ? v[i] : i === 0 ? v : undefined));
    };
  } else {
    labels = [...properties];
    values = (f) => properties.map((p) => cell(f.properties[p]));
  }
  return memoryCube({
    dimensions: [geometry, { name: 'properties', type: 'other', labels }],
    data: Float64Array.from(features.flatMap(values)),
    geometries: features,
  });
}

async function saveResult({ data, format, options }: Args, context: ProcessContext): Promise<unknown> {
  const sink = context.services.results;
  const name = String(format);
  if (!sink || !sink.formats().some((f) => f.toLowerCase() === name.toLowerCase()))
    throw invalidArgument(
      'save_result',
      'format',
      `format '${name}' is not supported here (supported: ${sink?.formats().join(', ') || 'none'})`,
    );
  if (isCube(data) && data.cells === 0)
    throw new ProcessingError('DataCubeEmpty', 'The data cube is empty; there is nothing to save.');
  return sink.save(data, name, (options as Record<string, unknown>) ?? {}, context.signal);
}

export const ioProcesses: ProcessDefinition[] = [
  { id: 'load_collection', run: loadCollection },
  {
    id: 'load_geojson',
    run: ({ data, properties }: Args) =>
      vectorCube(featuresOfArgument(data, 'load_geojson', 'data'), 'EPSG:4326', properties as string[]),
  },
  {
    id: 'load_features',
    run: async ({ id, properties }: Args, context: ProcessContext) => {
      const collection = await context.services.features?.get(id as string, context.signal);
      if (!collection)
        throw new ProcessingError('FeatureCollectionNotFound', `Feature collection '${id as string}' does not exist.`);
      return vectorCube(collection.features, collection.crs ?? 'EPSG:4326', properties as string[]);
    },
  },
  { id: 'save_result', run: saveResult },
];
