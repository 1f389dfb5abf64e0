import type { Cluster } from '../../../core/cluster/port.ts';
import { openStoredLevels } from '../../../core/processing/collections/stored-cube.ts';
import type { ChunkArray, DataCube } from '../../../core/processing/cube/cube.ts';
import { formatPeriod, type PeriodType } from '../../../core/periods/index.ts';
import { colormapNames, DEFAULT_COLORMAP } from '../../../core/render/colormap.ts';
import {
  renderTile,
  TILE_SIZE,
  tileBounds,
  tileCells,
  tileLevel,
  type Grid,
  type TileBounds,
} from '../../../core/render/tiles.ts';
import { dataSourceKind, type DataSource } from '../../../core/resources/data-source/schema.ts';
import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import { ZARR_FORMATS } from '../../../core/resources/dataset/served-version.ts';
import { storeFile } from '../../../core/stores/layout.ts';
import { openVersionStore } from '../../../core/stores/version-store.ts';
import { HttpError } from '../../errors.ts';
import { Lru } from '../../../core/cache/lru.ts';
import { readVersion, type DatasetRef } from '../resources/served-version.ts';

/** One resolution level of a version: its lazy cube and its grid. */
export interface TiledLevel {
  cube: DataCube;
  grid: Grid;
}

/** A served version opened for tiles: its levels, period labels and the source's display settings. */
export interface TiledVersion {
  datasetId: string;
  version: string;
  /** Level 0 (the stored grid), then the store's multiscale levels, each twice as coarse as the one before. */
  levels: TiledLevel[];
  /** Bounds of level 0's cells, in degrees. */
  bounds: TileBounds;
  periods: string[];
  style: { colormap: string; range?: [number, number]; nodata?: number };
  /** The zoom at which a tile pixel is about a quarter of a level 0 cell. */
  maxzoom: number;
  /** Without a display range: each period's lowest and highest value, so that its tiles share one scale. */
  ranges: Map<number, Promise<[number, number]>>;
}

/** Chunks read at once for one tile: they inflate on libuv's pool, so several cores decode them. */
const CHUNKS_IN_FLIGHT = 4;

/**
 * Decoded chunks kept, in bytes. A map viewer asks for the same chunks again and again: a chunk holds several
 * periods (the time slider) and several tiles (panning, zooming), and decoding is most of a tile's cost.
 */
const DECODED_CHUNK_BYTES = 128 * 1024 * 1024;

/** Opened versions kept, least recently used out first; versions are immutable, so an entry is never stale. */
const OPEN_VERSIONS = 32;

/** Map tiles of the datasets' served versions (`/datasets/{id}/tiles/...`), read from the stores chunk by chunk. */
export class DatasetTiles {
  readonly #cluster: Cluster;
  readonly #namespace: string;
  readonly #storageRoot: string;
  readonly #open = new Lru<Promise<TiledVersion>>(OPEN_VERSIONS);
  readonly #chunks = new Lru<Promise<ChunkArray>>(DECODED_CHUNK_BYTES);

  constructor(cluster: Cluster, namespace: string, storageRoot: string) {
    this.#cluster = cluster;
    this.#namespace = namespace;
    this.#storageRoot = storageRoot;
  }

  /** The served version of `ref.id` (or the retained one `ref.version` names), or the 404 that says why there is none. */
  async version({ id, version: named }: DatasetRef): Promise<TiledVersion> {
    // The format is checked after the version (a dataset with nothing stored says so first), in words of its own.
    const { dataset, version } = await readVersion(this.#cluster, this.#namespace, id, { version: named });
    if (!ZARR_FORMATS.includes(dataset.spec.format))
      throw new HttpError('NotFound', `Dataset ${id} is stored as ${dataset.spec.format}, which has no tiles`);
    const key = `${id}@${version.id}`;
    let opened = this.#open.get(key);
    if (!opened) {
      opened = this.#openVersion(dataset, version.id, storeFile(this.#storageRoot, version.path), version.snapshot);
      // A failed open is not kept: the next request tries again.
      opened.catch(() => this.#open.delete(key));
      this.#open.set(key, opened);
    }
    return opened;
  }

  async #openVersion(dataset: Dataset, version: string, dir: string, snapshot?: string): Promise<TiledVersion> {
    const levels = (await openStoredLevels(await openVersionStore(dir, snapshot))).map(tiledLevel);
    const { cube, grid } = levels[0]!;
    const [time, , y, x] = cube.dimensions;
    const [lat, lon] = [y!.labels as number[], x!.labels as number[]];
    const [hx, hy] = [Math.abs(grid.dx) / 2, Math.abs(grid.dy) / 2];
    const source = await this.#cluster.get<DataSource>(dataSourceKind, dataset.spec.source, this.#namespace);
    const display = source?.spec.display;
    const periodType = dataset.spec.periodType as PeriodType;
    return {
      datasetId: dataset.metadata.name,
      version,
      levels,
      bounds: {
        west: Math.min(...lon) - hx,
        east: Math.max(...lon) + hx,
        south: Math.min(...lat) - hy,
        north: Math.max(...lat) + hy,
      },
      periods: time!.labels.map((l) => formatPeriod({ type: periodType, start: new Date(String(l)) })),
      style: {
        colormap: display?.colormap && colormapNames.includes(display.colormap) ? display.colormap : DEFAULT_COLORMAP,
        ...(display?.range && { range: display.range as [number, number] }),
        ...(display?.nodata !== undefined && { nodata: display.nodata }),
      },
      maxzoom: Math.max(0, Math.ceil(Math.log2(360 / (Math.abs(grid.dx) * 256))) + 2),
      ranges: new Map(),
    };
  }

  /**
   * Chunk [time block, row block, column block] of level `level` of the version, for period `time`, decoded once
   * and then served from memory while it is among the recently used.
   */
  #chunk(
    tiled: TiledVersion,
    level: number,
    time: number,
    row: number,
    col: number,
    signal?: AbortSignal,
  ): Promise<ChunkArray> {
    signal?.throwIfAborted();
    const { cube } = tiled.levels[level]!;
    const [ct, , cy, cx] = cube.metadata.chunkShape as [number, number, number, number];
    const index = [Math.floor(time / ct), 0, Math.floor(row / cy), Math.floor(col / cx)];
    const key = `${tiled.datasetId}@${tiled.version}/${level}/${index.join('.')}`;
    let chunk = this.#chunks.get(key);
    if (!chunk) {
      // Read without the request's signal: the decoded chunk is kept for other requests, which one client going
      // away must not fail.
      chunk = cube.source.readChunk(index);
      chunk.catch(() => this.#chunks.delete(key));
      const [nt, , ny, nx] = cube.shape as [number, number, number, number];
      const cells =
        Math.min(ct, nt - index[0]! * ct) * Math.min(cy, ny - index[2]! * cy) * Math.min(cx, nx - index[3]! * cx);
      this.#chunks.set(key, chunk, cells * (cube.metadata.dtype === 'float32' ? 4 : 8));
    }
    return chunk;
  }

  /**
   * The value range tiles of period `time` are coloured over: the display's, else the period's own at the
   * coarsest level (the whole grid in its fewest chunks).
   */
  #range(tiled: TiledVersion, time: number): Promise<[number, number]> {
    if (tiled.style.range) return Promise.resolve(tiled.style.range);
    let range = tiled.ranges.get(time);
    if (!range) {
      range = (async () => {
        const level = tiled.levels.length - 1;
        const { cube } = tiled.levels[level]!;
        const [ct, , cy, cx] = cube.metadata.chunkShape as [number, number, number, number];
        const [, , ly, lx] = cube.shape as [number, number, number, number];
        let [lo, hi] = [Infinity, -Infinity];
        for (let row = 0; row < ly; row += cy)
          for (let col = 0; col < lx; col += cx) {
            const chunk = await this.#chunk(tiled, level, time, row, col);
            const plane = chunk.length / Math.min(ct, cube.shape[0]! - Math.floor(time / ct) * ct);
            for (const v of chunk.subarray((time % ct) * plane, (time % ct) * plane + plane))
              if (Number.isFinite(v) && v !== tiled.style.nodata) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
          }
        return lo <= hi ? [lo, hi] : [0, 1];
      })();
      tiled.ranges.set(time, range);
    }
    return range;
  }

  /**
   * The PNG of tile z/x/y of period `time` (an index into `periods`). 404 when the tile lies wholly outside the
   * grid.
   */
  async tile(
    tiled: TiledVersion,
    time: number,
    tile: { z: number; x: number; y: number },
    style: { colormap?: string; range?: [number, number] },
    signal?: AbortSignal,
  ): Promise<Buffer> {
    return renderTile(await this.tileValues(tiled, time, tile, signal), {
      colormap: style.colormap ?? tiled.style.colormap,
      range: style.range ?? (await this.#range(tiled, time)),
      ...(tiled.style.nodata !== undefined && { nodata: tiled.style.nodata }),
    });
  }

  /**
   * The 256 × 256 values of tile z/x/y of period `time` (NaN off the grid), from the level that fits the tile's
   * pixels (`tileLevel`). 404 when the tile lies wholly outside the grid. Only the level's stored chunks under the
   * tile are read.
   */
  async tileValues(
    tiled: TiledVersion,
    time: number,
    tile: { z: number; x: number; y: number },
    signal?: AbortSignal,
  ): Promise<Float64Array> {
    const { z, x, y } = tile;
    const b = tileBounds(z, x, y);
    const g = tiled.bounds;
    if (b.east <= g.west || b.west >= g.east || b.north <= g.south || b.south >= g.north)
      throw new HttpError('NotFound', `Tile ${z}/${x}/${y} is outside the extent of dataset ${tiled.datasetId}`);
    const level = tileLevel(
      tiled.levels.map((l) => Math.abs(l.grid.dx)),
      z,
      x,
      y,
    );
    const { cube, grid } = tiled.levels[level]!;
    const cells = tileCells(grid, z, x, y);
    const [ct, , cy, cx] = cube.metadata.chunkShape as [number, number, number, number];
    const [nt, , ly, lx] = cube.shape as [number, number, number, number];
    const columns = Math.ceil(lx / cx);
    const chunkOf = (p: number) => Math.floor(cells[p + 1]! / cy) * columns + Math.floor(cells[p]! / cx);
    // The pixels of a row share a grid row and take its columns in order: the chunk under a pixel is nearly
    // always the previous pixel's, so it is looked up only when it changes.
    const needed = new Set<number>();
    for (let p = 0, last = -1; p < cells.length; p += 2) {
      if (cells[p]! < 0) continue;
      const key = chunkOf(p);
      if (key !== last) needed.add((last = key));
    }
    const keys = [...needed];
    const chunks = new Map<number, ChunkArray>();
    let next = 0;
    const reader = async () => {
      while (next < keys.length) {
        const key = keys[next++]!;
        const [row, col] = [Math.floor(key / columns) * cy, (key % columns) * cx];
        chunks.set(key, await this.#chunk(tiled, level, time, row, col, signal));
      }
    };
    await Promise.all(Array.from({ length: Math.min(CHUNKS_IN_FLIGHT, keys.length) }, reader));
    const [t, lt] = [time % ct, Math.min(ct, nt - Math.floor(time / ct) * ct)];
    const values = new Float64Array(TILE_SIZE * TILE_SIZE).fill(NaN);
    if (lt > 0)
      for (let p = 0; p < cells.length; p += 2) {
        const col = cells[p]!;
        if (col < 0) continue;
        const row = cells[p + 1]!;
        const iy = Math.floor(row / cy);
        const ix = Math.floor(col / cx);
        // The chunk's extent, clipped at the cube's edge.
        const h = Math.min(cy, ly - iy * cy);
        const w = Math.min(cx, lx - ix * cx);
        values[p >> 1] = chunks.get(iy * columns + ix)![(t * h + (row - iy * cy)) * w + (col - ix * cx)]!;
      }
    return values;
  }
}

/** A level's cube with the grid its coordinates describe. */
function tiledLevel(cube: DataCube): TiledLevel {
  const [, , y, x] = cube.dimensions;
  const [lat, lon] = [y!.labels as number[], x!.labels as number[]];
  return {
    cube,
    grid: { lon0: lon[0]!, lat0: lat[0]!, dx: x!.step ?? 1, dy: y!.step ?? -1, width: lon.length, height: lat.length },
  };
}
