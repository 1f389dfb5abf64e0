/**
 * A raster cube as a Zarr v2 store with consolidated metadata (batch job results), in the layout of `cf-raster.ts`
 * and with the CF and GDAL metadata of the stores' own Zarr writer (`ZarrV2GroupWriter`): `_ARRAY_DIMENSIONS`, 1-D
 * `time`/`lat`/`lon`, one float32 variable per band (`value` without bands) with `grid_mapping: spatial_ref`, a
 * scalar `spatial_ref` with `crs_wkt`, NaN as fill value, zlib as the stores' v2 writer compresses. Consolidated
 * metadata is written last.
 *
 * Written chunk by chunk: the Zarr chunks are the cube's own chunks along time, lat and lon, grown by whole
 * multiples towards 2 MiB per chunk, so that each of the cube's chunks is read once and only one block of chunks
 * is in memory at a time. A cube whose chunks are too large for that (one chunk over a large grid) is read whole,
 * under `maxCells`, and written in chunks of the stores' shape (`chunkShape`).
 *
 * Several writers may write one store at once (the parts of a split batch job): each writes every metadata
 * document, which all derive alike from the cube, and the chunks of its own block of time.
 */
import { gridMappingAttributes, LATITUDE_ATTRIBUTES, LONGITUDE_ATTRIBUTES, WGS84_WKT } from '../../stores/cf.ts';
import { directoryStore } from '../../stores/directory-store.ts';
import { chunkShape } from '../../stores/raster-cube.ts';
import type { ArraySpec, TypedValues } from '../../stores/zarr/group-writer.ts';
import { ZarrV2GroupWriter } from '../../stores/zarr/v2.ts';
import { DataCube, type ChunkArray } from '../cube/cube.ts';
import { chunkCounts, chunkIndices, product } from '../cube/grid.ts';
import { materialize } from '../cube/read.ts';
import { cfBlock, cfLayout, TIME_ATTRIBUTES, type CfLayout } from './cf-raster.ts';

/** Cells of one variable's chunk that the chunks grow towards (2 MiB of float32, as the stores' chunks). */
const TARGET_CELLS = 512 * 1024;
/** Cells of one block read at once (all its variables), past which the cube is read whole instead. */
export const MAX_BLOCK_CELLS = 16 * 1024 * 1024;

export interface ZarrPlan {
  /** The variables' chunk shape, over `[time,] lat, lon`. */
  chunks: number[];
  /** Variables read together: the cube's chunks along its bands dimension (all of them without one). */
  bandsPerRead: number;
  /** Read chunk by chunk (the chunks are the cube's, grown), or read whole first. */
  streamed: boolean;
}

/**
 * The chunk shape of the variables: the cube's own chunk along each variable axis, then grown by whole multiples
 * along time, then lat, then lon while a chunk stays under `TARGET_CELLS` (and a block under `maxBlockCells`); any
 * multiple keeps every Zarr chunk made of whole cube chunks (the last one along an axis may be cut by its end).
 */
export function zarrPlan(cube: DataCube, layout: CfLayout, maxBlockCells = MAX_BLOCK_CELLS): ZarrPlan {
  const cubeChunks = cube.metadata.chunkShape;
  const bandsPerRead = layout.bandAxis >= 0 ? cubeChunks[layout.bandAxis]! : 1;
  const chunks = layout.axes.map((axis, i) => Math.min(cubeChunks[axis]!, layout.shape[i]!));
  const target = Math.min(TARGET_CELLS, Math.floor(maxBlockCells / bandsPerRead));
  for (let i = 0; i < chunks.length; i++) {
    const times = Math.floor(target / product(chunks));
    if (times <= 1) break;
    chunks[i] = Math.min(layout.shape[i]!, chunks[i]! * times);
    if (chunks[i]! < layout.shape[i]!) break;
  }
  if (product(chunks) * bandsPerRead <= maxBlockCells) return { chunks, bandsPerRead, streamed: true };
  const [ny, nx] = layout.shape.slice(-2) as [number, number];
  const [ct, cy, cx] = chunkShape(layout.time?.length ?? 1, ny, nx);
  return { chunks: layout.time ? [ct, cy, cx] : [cy, cx], bandsPerRead: layout.variables.length, streamed: false };
}

/** The cube held in memory as one chunk, for reading blocks of a cube whose own chunks are too large. */
function wholeCube(cube: DataCube, values: ChunkArray): DataCube {
  return new DataCube({
    metadata: { ...cube.metadata, chunkShape: cube.shape },
    // readRegion only copies out of the chunk, so the one array can be lent to every read.
    readChunk: async () => values,
  });
}

/** One of `count` writers that write one store at once: each writes the metadata and its block of chunks. */
export interface WriterShare {
  index: number;
  count: number;
}

/**
 * Whether a writer writes the chunk at `index`: the chunks along time are cut into `count` contiguous blocks, one
 * per writer; a store without time is written by the first writer alone.
 */
function mine(share: WriterShare | undefined, index: number[], timeChunks: number | undefined): boolean {
  if (!share) return true;
  if (timeChunks === undefined) return share.index === 0;
  const block = (i: number) => Math.floor((i * timeChunks) / share.count);
  return index[0]! >= block(share.index) && index[0]! < block(share.index + 1);
}

export async function cubeZarr(
  cube: DataCube,
  dir: string,
  maxCells: number,
  signal?: AbortSignal,
  maxBlockCells = MAX_BLOCK_CELLS,
  share?: WriterShare,
): Promise<void> {
  const layout = cfLayout(cube, 'Zarr');
  const plan = zarrPlan(cube, layout, maxBlockCells);
  // Writers that share a store each write the same metadata, all of it, so that any of them may finish it.
  const source = plan.streamed ? cube : wholeCube(cube, await materialize(cube, maxCells, signal));
  const zarr = new ZarrV2GroupWriter(directoryStore(dir));
  await zarr.group({ Conventions: 'CF-1.8', source: 'Stratus openEO batch job' });
  const whole = async (spec: Omit<ArraySpec, 'chunks' | 'compressor' | 'fillValue'>, values: TypedValues) => {
    const full = { ...spec, chunks: spec.shape, compressor: null, fillValue: null };
    await zarr.array(full);
    await zarr.chunk(
      full,
      spec.shape.map(() => 0),
      values,
    );
  };
  const coordinates: [string, BigInt64Array | Float64Array | undefined, Record<string, unknown>][] = [
    ['time', layout.time, TIME_ATTRIBUTES],
    ['lat', layout.lat, LATITUDE_ATTRIBUTES],
    ['lon', layout.lon, LONGITUDE_ATTRIBUTES],
  ];
  for (const [name, values, attributes] of coordinates)
    if (values)
      await whole(
        {
          name,
          shape: [values.length],
          dataType: values instanceof BigInt64Array ? 'int64' : 'float64',
          dimensions: [name],
          attributes,
        },
        values,
      );
  await whole(
    {
      name: 'spatial_ref',
      shape: [],
      dataType: 'int64',
      dimensions: [],
      attributes: gridMappingAttributes(layout.geoTransform),
    },
    new BigInt64Array(1),
  );
  const specs = layout.variables.map((name, b): ArraySpec => ({
    name,
    shape: layout.shape,
    chunks: plan.chunks,
    dataType: 'float32',
    compressor: { id: 'zlib', level: 1 },
    fillValue: 'NaN',
    dimensions: layout.time ? ['time', 'lat', 'lon'] : ['lat', 'lon'],
    attributes: {
      long_name: layout.bands[b] ?? name,
      grid_mapping: 'spatial_ref',
      coordinates: 'spatial_ref',
      _CRS: { wkt: WGS84_WKT },
    },
  }));
  for (const spec of specs) await zarr.array(spec);
  const counts = chunkCounts(layout.shape, plan.chunks);
  for (const index of chunkIndices(counts)) {
    if (!mine(share, index, layout.time ? counts[0] : undefined)) continue;
    const start = index.map((c, i) => c * plan.chunks[i]!);
    for (let from = 0; from < specs.length; from += plan.bandsPerRead) {
      signal?.throwIfAborted();
      const to = Math.min(specs.length, from + plan.bandsPerRead);
      // The block has the chunk's full shape: past the cube's edge it reads as NaN, the fill value.
      const block = await cfBlock(source, layout, start, plan.chunks, [from, to], signal);
      await Promise.all(block.map((values, b) => zarr.chunk(specs[from + b]!, index, values)));
    }
  }
  await zarr.consolidate();
}
