import { formatPeriod, type Period, type PeriodType } from '../periods/index.ts';
import type { RasterGrid } from './raster-grid.ts';
import { coordinateAttributes, dataAttributes, gridMappingAttributes, timeValues, WGS84_WKT } from './cf.ts';
import { directoryStore } from './directory-store.ts';
import { downsample, multiscalesAttributes, pyramidGrids } from './pyramid.ts';
import type { Coverage, WritableStore } from './store.ts';
import type { Compressor } from './zarr/codecs.ts';
import type { ArraySpec, TypedValues, ZarrGroupWriter } from './zarr/group-writer.ts';
import { ZarrV2GroupWriter } from './zarr/v2.ts';
import { ZarrV3GroupWriter } from './zarr/v3.ts';

/** What a raster cube holds: one variable over (time, lat, lon) on a north-up EPSG:4326 grid. */
export interface RasterCubeDescription {
  variable: string;
  units?: string;
  longName?: string;
  periodType: PeriodType;
  periods: Period[];
  grid: RasterGrid;
  /** Global attributes (title, source, license, ...). */
  attributes: Record<string, unknown>;
  compressor?: Compressor | null;
  /** Zarr format of the store (2 unless asked). */
  zarrVersion?: 2 | 3;
  /** Chunk shape to keep (an append keeps the stored one); computed from the size when absent. */
  chunks?: [number, number, number];
  /**
   * Periods already in the directory as complete time blocks of chunks (an append links them from the previous
   * version); appending starts after them. A multiple of the time chunk.
   */
  firstPeriod?: number;
  /**
   * Whether a grid larger than 1024 cells on a side gets multiscale levels (default true); false for a splice of a
   * version written without them, whose kept chunks have no levels to link.
   */
  multiscales?: boolean;
}

const storeOf = (target: string | WritableStore) => (typeof target === 'string' ? directoryStore(target) : target);

/** Bytes per chunk that the chunk shape aims at (DESIGN.md §4: near 2 MiB). */
const TARGET_CHUNK_BYTES = 2 * 1024 * 1024;
const MAX_SPATIAL_CHUNK = 256;
/** Chunk compressions and writes in flight at once; they run on libuv's pool, sized 4 by default. */
export const PARALLEL_CHUNKS = 4;

export function chunkShape(periods: number, ny: number, nx: number): [number, number, number] {
  const cy = Math.min(ny, MAX_SPATIAL_CHUNK);
  const cx = Math.min(nx, MAX_SPATIAL_CHUNK);
  const ct = Math.max(1, Math.min(periods, Math.round(TARGET_CHUNK_BYTES / (4 * cy * cx))));
  return [ct, cy, cx];
}

/**
 * The chunk shape of a cube written in `parts`: each part writes whole time blocks of chunks, so a block may not
 * be longer than a part's share of the periods.
 */
export function partsChunkShape(periods: number, ny: number, nx: number, parts: number): [number, number, number] {
  const [ct, cy, cx] = chunkShape(periods, ny, nx);
  return [Math.min(ct, Math.ceil(periods / parts)), cy, cx];
}

/**
 * The periods [from, to) that part `index` of `count` writes: a contiguous run of whole time blocks, the blocks
 * shared out as evenly as they go. With the chunk shape of `partsChunkShape` no part is empty.
 */
export function partPeriods(periods: number, timeChunk: number, index: number, count: number) {
  const blocks = Math.ceil(periods / timeChunk);
  const block = (i: number) => Math.floor((i * blocks) / count);
  return { from: block(index) * timeChunk, to: Math.min(periods, block(index + 1) * timeChunk) };
}

/** GDAL's affine transform of the grid: origin at the north-west corner of the first cell. */
export function geoTransform(grid: RasterGrid): number[] {
  const half = grid.resolution / 2;
  return [grid.lon[0]! - half, grid.resolution, 0, grid.lat[0]! + half, 0, -grid.resolution];
}

export function gridCoverage(grid: RasterGrid): Coverage['spatial'] {
  const half = grid.resolution / 2;
  const round = (v: number) => Math.round(v * 1e9) / 1e9;
  return {
    xmin: round(grid.lon[0]! - half),
    ymin: round(grid.lat[grid.lat.length - 1]! - half),
    xmax: round(grid.lon[grid.lon.length - 1]! + half),
    ymax: round(grid.lat[0]! + half),
  };
}

/** What a complete cube covers: the grid's edges and its first and last period. */
export function cubeCoverage({ grid, periods }: RasterCubeDescription): Coverage {
  return {
    spatial: gridCoverage(grid),
    temporal: { start: formatPeriod(periods[0]!), end: formatPeriod(periods[periods.length - 1]!) },
  };
}

/** One resolution level's data array and the grid it lies on. */
interface Level {
  grid: RasterGrid;
  data: ArraySpec;
}

/**
 * Writes a raster cube as a Zarr store (v2 by default, v3 on request) with the CF and GDAL metadata that xarray,
 * rioxarray and GDAL read: dimension names, 1-D `time`/`lat`/`lon` coordinates, `grid_mapping` to a scalar
 * `spatial_ref`, and `_CRS`. Periods are appended in order; every full block of time steps is written as soon as
 * it is complete. A grid larger than 1024 cells on a side also gets multiscale levels (pyramid.ts) in child
 * groups `1/`, `2/`, ..., each block of time steps written to every level at once.
 */
export class RasterCubeWriter {
  readonly #zarr: ZarrGroupWriter;
  readonly #description: RasterCubeDescription;
  /** Level 0 (the root variable at full resolution), then the coarser levels. */
  readonly #levels: Level[];
  readonly #block: Float32Array;
  readonly #shape: [number, number, number];
  #appended = 0;
  /** Where appending ends: the last period, or the end of a part's periods. */
  #end: number;
  /** Writes one part's chunks only; the metadata is written by `completeParts`. */
  #part = false;
  /**
   * Chunk writes in flight, across blocks: the next block fills while the last one's chunks compress, so a block's
   * small edge chunks do not leave the pool's threads idle behind its large one. They never reject: the first
   * failure is kept in `#failure` and thrown by the next append or by `finish`.
   */
  readonly #writing = new Set<Promise<void>>();
  #failure: { error: unknown } | undefined;

  private constructor(store: WritableStore, description: RasterCubeDescription) {
    const v3 = description.zarrVersion === 3;
    this.#zarr = v3 ? new ZarrV3GroupWriter(store) : new ZarrV2GroupWriter(store);
    this.#description = description;
    const { grid, periods } = description;
    const [ny, nx] = [grid.lat.length, grid.lon.length];
    this.#shape = description.chunks ?? chunkShape(periods.length, ny, nx);
    this.#appended = description.firstPeriod ?? 0;
    this.#end = periods.length;
    if (this.#appended % this.#shape[0] !== 0) throw new Error('firstPeriod must start a time block of chunks');
    this.#block = new Float32Array(this.#shape[0] * ny * nx);
    const dataSpec = (name: string, [ly, lx]: [number, number], chunks: [number, number, number]): ArraySpec => ({
      name,
      shape: [periods.length, ly, lx],
      chunks,
      dataType: 'float32',
      // zlib for v2 (every v2 reader has it); v3 has no zlib codec, and zstd decodes fastest.
      compressor:
        description.compressor === undefined ? { id: v3 ? 'zstd' : 'zlib', level: 1 } : description.compressor,
      fillValue: 'NaN',
      dimensions: ['time', 'lat', 'lon'],
      attributes: { ...dataAttributes(description), _CRS: { wkt: WGS84_WKT } },
    });
    const [ct, cy, cx] = this.#shape;
    this.#levels = [
      { grid, data: dataSpec(description.variable, [ny, nx], this.#shape) },
      ...(description.multiscales === false ? [] : pyramidGrids(grid)).map((level, i) => {
        const size: [number, number] = [level.lat.length, level.lon.length];
        return {
          grid: level,
          data: dataSpec(`${i + 1}/${description.variable}`, size, [ct, Math.min(cy, size[0]), Math.min(cx, size[1])]),
        };
      }),
    ];
  }

  /** A writer into a directory (each key a flushed file) or into any other key writer. */
  static async create(target: string | WritableStore, description: RasterCubeDescription): Promise<RasterCubeWriter> {
    if (description.periods.length === 0) throw new Error('a raster cube needs at least one period');
    const writer = new RasterCubeWriter(storeOf(target), description);
    await writer.#writeCoordinates();
    return writer;
  }

  /**
   * A writer of periods [from, to) of the cube and nothing else: one part of a cube written by several workers at
   * once into the same directory (disjoint chunk files). `from` starts a time block; `to` ends one, or the cube.
   */
  static part(target: string | WritableStore, description: RasterCubeDescription, range: { from: number; to: number }) {
    const writer = new RasterCubeWriter(storeOf(target), {
      ...description,
      firstPeriod: range.from,
    });
    const timeChunk = writer.#shape[0];
    if (range.to <= range.from || range.to > description.periods.length)
      throw new Error(`periods ${range.from} to ${range.to} are not a part of ${description.periods.length}`);
    if (range.to % timeChunk !== 0 && range.to !== description.periods.length)
      throw new Error('a part must end a time block of chunks');
    writer.#end = range.to;
    writer.#part = true;
    return writer;
  }

  /**
   * Completes a cube whose chunks parts wrote: the group, the coordinates, the data array's metadata and the
   * consolidated metadata. Returns what the cube covers.
   */
  static async completeParts(target: string | WritableStore, description: RasterCubeDescription): Promise<Coverage> {
    const writer = new RasterCubeWriter(storeOf(target), description);
    await writer.#writeCoordinates();
    await writer.#zarr.consolidate();
    return cubeCoverage(description);
  }

  get chunkShape(): readonly number[] {
    return this.#shape;
  }

  /** Periods in the cube so far: kept from a previous version, and appended. */
  get appendedPeriods(): number {
    return this.#appended;
  }

  /**
   * Periods appended but not yet handed to the store: 0 right after a block of time steps was; its chunks are in the
   * store once `written()` resolves.
   */
  get pendingPeriods(): number {
    return this.#appended === this.#end ? 0 : this.#appended % this.#shape[0];
  }

  /** Declares a small array and writes it as its single chunk. */
  async #whole(spec: ArraySpec, values: TypedValues): Promise<void> {
    await this.#zarr.array(spec);
    await this.#zarr.chunk(
      spec,
      spec.shape.map(() => 0),
      values,
    );
  }

  async #writeCoordinates(): Promise<void> {
    const { variable, periods, periodType, attributes } = this.#description;
    const pyramid = this.#levels.length > 1 ? multiscalesAttributes(variable, this.#levels.length - 1) : {};
    await this.#zarr.group({ Conventions: 'CF-1.8', ...attributes, ...pyramid });
    for (const [index, level] of this.#levels.entries()) {
      const prefix = index === 0 ? '' : `${index}/`;
      if (index > 0) await this.#zarr.subgroup(String(index), { Conventions: 'CF-1.8' });
      await this.#writeLevelCoordinates(prefix, level, timeValues(periods, periodType));
    }
  }

  /** A level's coordinates, grid mapping and data array, each named under `prefix`. */
  async #writeLevelCoordinates(prefix: string, { grid, data }: Level, time: TypedValues): Promise<void> {
    const cf = coordinateAttributes(this.#description.periodType);
    // Each coordinate is one uncompressed chunk, with no fill value (coordinates have no missing values).
    const coordinates = { time, lat: grid.lat, lon: grid.lon };
    for (const [name, values] of Object.entries(coordinates) as [keyof typeof coordinates, TypedValues][])
      await this.#whole(
        {
          name: `${prefix}${name}`,
          shape: [values.length],
          chunks: [values.length],
          dataType: name === 'time' ? 'int64' : 'float64',
          compressor: null,
          fillValue: null,
          dimensions: [name],
          attributes: cf[name],
        },
        values,
      );
    await this.#whole(
      {
        name: `${prefix}spatial_ref`,
        shape: [],
        chunks: [],
        dataType: 'int64',
        compressor: null,
        fillValue: 0,
        dimensions: [],
        attributes: gridMappingAttributes(geoTransform(grid)),
      },
      new BigInt64Array(1),
    );
    await this.#zarr.array(data);
  }

  /** Adds the values of the next period (row-major lat, lon). */
  async append(values: Float32Array): Promise<void> {
    const { grid } = this.#description;
    const plane = grid.lat.length * grid.lon.length;
    if (values.length !== plane) throw new Error(`expected ${plane} values, got ${values.length}`);
    if (this.#appended >= this.#end) throw new Error('more periods appended than declared');
    const slot = this.#appended % this.#shape[0];
    this.#block.set(values, slot * plane);
    this.#appended++;
    if (slot === this.#shape[0] - 1 || this.#appended === this.#end) await this.#flushBlock(slot + 1);
  }

  /** Writes the block of time steps to level 0, then each coarser level the mean of the one before. */
  async #flushBlock(filled: number): Promise<void> {
    const t = Math.floor((this.#appended - 1) / this.#shape[0]);
    let block = this.#block;
    for (const [index, level] of this.#levels.entries()) {
      if (index > 0) {
        const finer = this.#levels[index - 1]!.grid;
        block = downsample(block, this.#shape[0], finer.lat.length, finer.lon.length);
      }
      await this.#writeBlock(level, block, t, filled);
    }
    this.#block.fill(Number.NaN);
  }

  /** Writes time block `t` of a level (its first `filled` planes hold values) as chunks. */
  async #writeBlock({ grid, data }: Level, block: Float32Array, t: number, filled: number): Promise<void> {
    const [ct, cy, cx] = data.chunks as [number, number, number];
    const [ny, nx] = [grid.lat.length, grid.lon.length];
    for (let cj = 0; cj * cy < ny; cj++) {
      for (let ci = 0; ci * cx < nx; ci++) {
        // A slot first, then the copy: no more than PARALLEL_CHUNKS chunks are held beside the block.
        await this.#slot();
        // Edge chunks keep the full chunk shape; cells past the array's edge hold the fill value.
        const chunk = new Float32Array(ct * cy * cx).fill(Number.NaN);
        for (let k = 0; k < filled; k++) {
          for (let y = 0; y < cy && cj * cy + y < ny; y++) {
            const from = k * ny * nx + (cj * cy + y) * nx + ci * cx;
            const width = Math.min(cx, nx - ci * cx);
            chunk.set(block.subarray(from, from + width), (k * cy + y) * cx);
          }
        }
        const writing: Promise<void> = this.#zarr.chunk(data, [t, cj, ci], chunk).then(
          () => void this.#writing.delete(writing),
          (error: unknown) => {
            this.#writing.delete(writing);
            this.#failure ??= { error };
          },
        );
        this.#writing.add(writing);
      }
    }
  }

  /** Waits until fewer than PARALLEL_CHUNKS chunk writes are in flight; throws the first that failed. */
  async #slot(): Promise<void> {
    while (this.#writing.size >= PARALLEL_CHUNKS) await Promise.race(this.#writing);
    if (this.#failure) throw this.#failure.error;
  }

  /** Waits for every chunk write in flight (the blocks appended are then in the store); throws the first that failed. */
  async written(): Promise<void> {
    await this.settled();
    if (this.#failure) throw this.#failure.error;
  }

  /** Waits until no chunk write is in flight, whether they succeeded or not (`CubeSink.settled`). */
  async settled(): Promise<void> {
    while (this.#writing.size > 0) await Promise.all(this.#writing);
  }

  /**
   * Writes consolidated metadata; the store is complete afterwards. Returns what it covers. A part's writer only
   * checks that its periods are all written.
   */
  async finish(): Promise<Coverage> {
    if (this.#appended !== this.#end) throw new Error(`${this.#end} periods declared but ${this.#appended} appended`);
    await this.written();
    if (!this.#part) await this.#zarr.consolidate();
    return cubeCoverage(this.#description);
  }
}
