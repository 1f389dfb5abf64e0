/**
 * A stored raster version (a Zarr directory, or an Icechunk snapshot, read through the same Zarr keys) as a lazy
 * data cube for `load_collection`: dimensions `t`, `bands`, `y`, `x` as openEO names them, labels from the store's
 * own coordinates, and chunks read and decoded only when a process reads them, one stored chunk per cube chunk.
 */
import { timeUnit } from '../../stores/committed-cube.ts';
import type { ReadableStore } from '../../stores/store.ts';
import { levelAssets } from '../../stores/pyramid.ts';
import { readZarrGroup, ZarrFormatError, type ZarrArray, type ZarrGroup } from '../../stores/zarr/metadata.ts';
import { chunkDecoding, readVector } from '../../stores/zarr/read.ts';
import { DataCube, type CubeDtype, type CubeSource, type EncodedChunk } from '../cube/cube.ts';
import { decodeInPool } from '../cube/encoded-chunk.ts';
import type { Dimension } from '../cube/dimension.ts';
import type { ReadBudget } from './read-budget.ts';
import { spansItsBuffer } from '../../buffers.ts';

/** The grid's reference system: the writers store every raster on EPSG:4326 `lat`/`lon` axes. */
const STORED_CRS = 'EPSG:4326';

/** The data variable: the one array over (time, lat, lon), as the writers store it (`core/stores/cf.ts`). */
function dataVariable(arrays: ZarrArray[]): ZarrArray {
  // Arrays in child groups (multiscale levels, `1/value`) are coarser copies of the root's variable, not others.
  const found = arrays.filter((a) => !a.name.includes('/') && a.dimensions.join(',') === 'time,lat,lon');
  if (found.length !== 1) throw new ZarrFormatError(`the store holds ${found.length} arrays over (time, lat, lon)`);
  return found[0]!;
}

async function coordinate(store: ReadableStore, array: ZarrArray | undefined, name: string) {
  if (!array) throw new ZarrFormatError(`the store has no ${name} coordinate`);
  const values = await readVector(store, array);
  if (!values) throw new ZarrFormatError(`coordinate ${name} has chunks missing`);
  return values;
}

/** RFC 3339 without milliseconds, as openEO clients show temporal labels. */
const instant = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function spatial(axis: 'x' | 'y', labels: Float64Array): Dimension {
  return {
    name: axis,
    type: 'spatial',
    axis,
    labels: Array.from(labels),
    crs: STORED_CRS,
    ...(labels.length > 1 && { step: labels[1]! - labels[0]! }),
  };
}

/** The cube of the Zarr group `store` holds; a ZarrFormatError when it is not laid out as the writers lay it. */
export async function openStoredCube(store: ReadableStore, budget?: ReadBudget): Promise<DataCube> {
  const group = await readStoredGroup(store);
  return cubeOf(store, group, dataVariable(Object.values(group.arrays)), budget);
}

/**
 * The cubes of the store's multiscale levels (`core/stores/pyramid.ts`), level 0 (the root's variable, the cube
 * `openStoredCube` opens) first, then each coarser level's from its child group; one cube for a store without
 * levels.
 */
export async function openStoredLevels(store: ReadableStore, budget?: ReadBudget): Promise<DataCube[]> {
  const group = await readStoredGroup(store);
  const variable = dataVariable(Object.values(group.arrays));
  return Promise.all(
    levelAssets(group.attributes, variable.name).map((asset) => {
      const array = group.arrays[asset];
      if (array?.dimensions.join(',') !== 'time,lat,lon')
        throw new ZarrFormatError(`the multiscale level ${asset} is no array over (time, lat, lon)`);
      return cubeOf(store, group, array, budget);
    }),
  );
}

async function readStoredGroup(store: ReadableStore): Promise<ZarrGroup> {
  const group = await readZarrGroup(store);
  if (!group) throw new ZarrFormatError('the version holds no Zarr group');
  // The writers always consolidate: the arrays are listed, so the data variable can be found among them.
  if (!group.consolidated) throw new ZarrFormatError('the version has no consolidated metadata');
  return group;
}

/** The cube of `variable`, labelled by the coordinates of its own group (the root's, or a level's `n/`). */
async function cubeOf(store: ReadableStore, group: ZarrGroup, variable: ZarrArray, budget?: ReadBudget) {
  const prefix = variable.name.slice(0, variable.name.lastIndexOf('/') + 1);
  const read = (name: string) => coordinate(store, group.arrays[prefix + name], prefix + name);
  const [time, lat, lon] = await Promise.all([read('time'), read('lat'), read('lon')]);
  const { step, epoch } = timeUnit(group.arrays[`${prefix}time`]?.attributes.units);
  const dimensions: Dimension[] = [
    {
      name: 't',
      type: 'temporal',
      labels: Array.from(time as BigInt64Array, (v) => instant(epoch + Number(v) * step)),
    },
    // The band is the variable's name at every level.
    { name: 'bands', type: 'bands', labels: [variable.name.slice(prefix.length)] },
    spatial('y', lat as Float64Array),
    spatial('x', lon as Float64Array),
  ];
  return new DataCube(storedSource(store, variable, dimensions, budget));
}

function storedSource(
  store: ReadableStore,
  array: ZarrArray,
  dimensions: Dimension[],
  budget: ReadBudget | undefined,
): CubeSource {
  const dtype: CubeDtype = array.dataType === 'float32' ? 'float32' : 'float64';
  const [ct, cy, cx] = array.chunks as [number, number, number];
  const [nt, ny, nx] = array.shape as [number, number, number];
  const fill = array.fillValue;
  const decoding = chunkDecoding(array);
  // Nodata is NaN in every cube (docs/processing.md); a NaN fill value already is.
  const nodata = fill !== null && !Number.isNaN(fill) ? fill : undefined;
  const encodedChunk = async (index: readonly number[], signal?: AbortSignal): Promise<EncodedChunk> => {
    signal?.throwIfAborted();
    const [it, , iy, ix] = index as [number, number, number, number];
    const clipped = [Math.min(ct, nt - it * ct), Math.min(cy, ny - iy * cy), Math.min(cx, nx - ix * cx)] as const;
    budget?.take(clipped[0] * clipped[1] * clipped[2]);
    const key = array.chunkKey([it, iy, ix]);
    const bytes = await store.get(key);
    const owned = store.freshBytes === true && bytes !== undefined && spansItsBuffer(bytes);
    return { key, bytes, owned, decoding, dtype, stored: [ct, cy, cx], clipped, nodata };
  };
  const units = array.attributes.units;
  return {
    metadata: {
      dimensions,
      dtype,
      cellType: 'number',
      chunkShape: [ct, 1, cy, cx],
      ...(typeof units === 'string' && { units: { [String(dimensions[1]!.labels[0])]: units } }),
    },
    encodedChunk,
    // Decoded on a worker thread: the main thread only reads the bytes.
    readChunk: async (index, signal) => decodeInPool(await encodedChunk(index, signal), signal),
  };
}
