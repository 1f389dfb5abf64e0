/**
 * Map tile latency: Stratus's `/datasets/{id}/tiles/{z}/{x}/{y}.png`, against GDAL warping the same Zarr store to
 * the same tiles and colouring them with the same colour map (`tile-peer.py`), both sides cold and both warm.
 * Every side first renders each tile once, so files are in the page cache and code is warm; then:
 * - cold: Stratus serves each tile from a server of its own (a fresh store opening, no decoded chunk; the warm-up
 *   the server starts once listening finished and its first request, which reads no store, answered: neither is
 *   timed), GDAL's library opens the store per tile in its running interpreter (its block cache dies with the
 *   dataset);
 * - warm: Stratus serves every tile again from the server that served them once, GDAL's library renders them again
 *   with each period's dataset kept open, so both hold the decoded chunks;
 * - and, for information, GDAL's command-line tools per tile (gdalwarp then gdaldem, two processes a tile).
 * Stratus is timed through HTTP by a client in this process, one request at a time. Each run measures every side
 * again (`BENCH_RUNS`); the ratios are the medians of the runs' p50 ratios.
 *
 * `node bench/tiles.ts` runs it alone (BENCH_TILE_PERIODS, BENCH_TILES_PER_ZOOM, BENCH_RUNS).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { buildApp } from '../api-server/app.ts';
import { openEmbeddedCluster } from '../core/cluster/embedded/index.ts';
import { parseInstanceConfig } from '../core/config/index.ts';
import type { Cluster } from '../core/cluster/port.ts';
import { formatPeriod, periodRange, type Period } from '../core/periods/index.ts';
import { colorAt } from '../core/render/colormap.ts';
import { tileMercatorBounds } from '../core/render/tiles.ts';
import { datasetKind } from '../core/resources/dataset/schema.ts';
import { API_VERSION } from '../core/resources/registry.ts';
import { versionPath } from '../core/stores/layout.ts';
import { RasterCubeWriter } from '../core/stores/raster-cube.ts';
import { processPool } from '../core/workers/pool.ts';
import { setCurrentVersion } from '../test/support/current-version.ts';
import { python } from '../test/support/python.ts';
import type { Headline } from './headline.ts';
import { benchRuns, medianRange, repeat, times } from './summary.ts';

export const TILE_PEER = join(import.meta.dirname, 'tile-peer.py');

/** A north-up grid of the benches: its north-west corner, cell size in degrees and size in cells. */
export interface BenchGrid {
  west: number;
  north: number;
  size: number;
  width: number;
  height: number;
}

/** A CHIRPS-like daily grid at 0.01° over 20° × 15° of West Africa. */
const GRID: BenchGrid = { west: -20, north: 15, size: 0.01, width: 2000, height: 1500 };
const COLORMAP = 'viridis';
const RANGE: [number, number] = [0, 100];
/** Colour stops written for gdaldem: its linear interpolation between them is the colour map's own. */
const STOPS = 64;

/** Milliseconds per tile. */
export interface Latency {
  p50: number;
  p95: number;
}

/** Stratus and its peer on the same tiles, in the same state. */
interface Sides {
  stratus: Latency;
  peer: Latency;
}

export interface TileRun {
  /** Stratus a fresh server per tile; GDAL's library the store opened per tile. */
  cold: Sides;
  /** Stratus a server that served every tile once; GDAL's library each period's dataset kept open. */
  warm: Sides;
  /** GDAL's command-line tools, two processes per tile. */
  cli: Latency;
}

export interface TileFigures {
  tiles: number;
  zooms: [number, number];
  runs: TileRun[];
}

export interface Tile {
  z: number;
  x: number;
  y: number;
  period: number;
  bounds: [number, number, number, number];
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
export const summary = (seconds: number[]): Latency => {
  const ms = seconds.map((s) => s * 1000).sort((a, b) => a - b);
  return { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95) };
};

/** Up to `perZoom` tiles of each zoom over the grid, spread evenly, each on one of the periods in turn. */
export function tileList(grid: BenchGrid, zooms: [number, number], perZoom: number, periods: number): Tile[] {
  const east = grid.west + grid.width * grid.size;
  const south = grid.north - grid.height * grid.size;
  const column = (lon: number, n: number) => Math.floor(((lon + 180) / 360) * n);
  const row = (lat: number, n: number) => {
    const phi = (lat * Math.PI) / 180;
    return Math.floor(((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * n);
  };
  const tiles: Tile[] = [];
  for (let z = zooms[0]; z <= zooms[1]; z++) {
    const n = 2 ** z;
    const [x0, x1, y0, y1] = [column(grid.west, n), column(east - 1e-9, n), row(grid.north, n), row(south + 1e-9, n)];
    const all: [number, number][] = [];
    for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) all.push([x, y]);
    const step = Math.max(1, all.length / perZoom);
    for (let k = 0; k < Math.min(perZoom, all.length); k++) {
      const [x, y] = all[Math.floor(k * step)]!;
      const m = tileMercatorBounds(z, x, y);
      tiles.push({ z, x, y, period: tiles.length % periods, bounds: [m.west, m.south, m.east, m.north] });
    }
  }
  return tiles;
}

/**
 * Writes a daily Zarr store of `steps` periods on `grid` at `store`: smooth fields with some nodata, so tiles are
 * neither flat nor noise. `multiscales: false` leaves out the levels a grid over 1024 cells a side gets.
 */
export async function writeBenchStore(store: string, grid: BenchGrid, steps: number, multiscales = true) {
  const { west, north, size, width, height } = grid;
  const periods = periodRange('daily', '2024-01-01', new Date(Date.UTC(2024, 0, steps)).toISOString().slice(0, 10));
  await mkdir(store, { recursive: true });
  const writer = await RasterCubeWriter.create(store, {
    variable: 'precip',
    periodType: 'daily',
    periods,
    grid: {
      lon: Float64Array.from({ length: width }, (_, i) => west + (i + 0.5) * size),
      lat: Float64Array.from({ length: height }, (_, j) => north - (j + 0.5) * size),
      resolution: size,
    },
    attributes: {},
    multiscales,
  });
  for (let t = 0; t < steps; t++) {
    const plane = new Float32Array(width * height);
    for (let j = 0; j < height; j++)
      for (let i = 0; i < width; i++)
        plane[j * width + i] =
          (i * 31 + j * 17) % 211 === 0 ? NaN : 50 + 45 * Math.sin((i + 40 * t) / 90) * Math.cos(j / 70);
    await writer.append(plane);
  }
  await writer.finish();
  return periods;
}

/** The colour file of gdaldem that draws Stratus's colour map over the benches' range. */
export async function writeColours(path: string) {
  const stops = Array.from({ length: STOPS }, (_, k) => {
    const f = k / (STOPS - 1);
    return `${RANGE[0] + f * (RANGE[1] - RANGE[0])} ${colorAt(COLORMAP, f).join(' ')} 255`;
  });
  await writeFile(path, [...stops, 'nv 0 0 0 0', ''].join('\n'));
}

/**
 * Timed tile requests of dataset `id` (a Dataset pointing at version `v1` of its store under `storageRoot`):
 * `cold` serves each tile from a server of its own (a fresh store opening, no decoded chunk; the server's start-up
 * warm-up finished and its first request, which reads no store, answered: neither is timed), `warm` serves every
 * tile again from a server that served them once.
 * Stratus is timed through HTTP by a client in this process, one request at a time.
 */
export async function tileTimer(cluster: Cluster, storageRoot: string, id: string, periods: Period[]) {
  await cluster.create(datasetKind, {
    apiVersion: API_VERSION,
    kind: 'Dataset',
    metadata: { name: id, namespace: 'default' },
    spec: { source: 'bench', datasetName: id, periodType: 'daily', format: 'zarr' },
  });
  await setCurrentVersion(cluster, id, 'v1');
  const query = (t: Tile) => `time=${formatPeriod(periods[t.period]!)}&colormap=${COLORMAP}&range=${RANGE.join(',')}`;
  /** One request per tile in turn, each timed from request to last byte. */
  const pass = async (url: string, list: Tile[]) => {
    const seconds: number[] = [];
    for (const t of list) {
      const start = performance.now();
      const response = await fetch(`${url}/datasets/${id}/tiles/${t.z}/${t.x}/${t.y}.png?${query(t)}`);
      const body = await response.arrayBuffer();
      if (response.status !== 200 || body.byteLength === 0)
        throw new Error(`tile ${t.z}/${t.x}/${t.y}: ${response.status} ${Buffer.from(body).toString()}`);
      seconds.push((performance.now() - start) / 1000);
    }
    return seconds;
  };
  const serve = async <T>(use: (url: string) => Promise<T>): Promise<T> => {
    const app = await buildApp({
      cluster,
      config: parseInstanceConfig('instance.name = Bench', 'bench'),
      registry: new Registry(),
      logger: false,
      storageRoot,
    });
    try {
      return await use(await app.listen({ port: 0, host: '127.0.0.1' }));
    } finally {
      await app.close();
    }
  };
  return {
    /** A first server's pass, which warms the page cache and the code. */
    warmUp: (tiles: Tile[]) => serve((url) => pass(url, tiles)),
    cold: async (tiles: Tile[]) => {
      const seconds: number[] = [];
      for (const tile of tiles)
        seconds.push(
          ...(await serve(async (url) => {
            // A started server as its first user finds it: the warm-up it starts once listening (worker threads
            // booted, the chunk decoder loaded) finished, which a warm-up of nothing waits for since each worker
            // answers in order, and its first request, which reads no store, answered. Neither is timed.
            await processPool().warm();
            await (await fetch(`${url}/datasets/${id}`)).arrayBuffer();
            return pass(url, [tile]);
          })),
        );
      return seconds;
    },
    warm: (tiles: Tile[]) =>
      serve(async (url) => {
        await pass(url, tiles);
        return pass(url, tiles);
      }),
  };
}

/** GDAL's times of the tiles from `source` (`{period}` standing for the period's index), as `tile-peer.py` says. */
export async function peerTimes(source: string, colours: string, tiles: string, work: string) {
  return python<{ cli: number[]; library: number[]; kept_open: number[] }>(
    await readFile(TILE_PEER, 'utf8'),
    [source, colours, tiles, work],
    3_600_000,
  );
}

export async function benchTiles(
  steps = 8,
  perZoom = 24,
  runs = benchRuns(),
  zooms: [number, number] = [4, 10],
): Promise<TileFigures> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-tiles-'));
  const storageRoot = join(root, 'store');
  const store = join(storageRoot, versionPath('tiles', 'v1'));
  const cluster = await openEmbeddedCluster({ dataDir: join(root, 'cluster') });
  try {
    const periods = await writeBenchStore(store, GRID, steps);
    const timer = await tileTimer(cluster, storageRoot, 'tiles', periods);
    const tiles = tileList(GRID, zooms, perZoom, steps);
    await timer.warmUp(tiles);

    const colours = join(root, 'colours.txt');
    await writeColours(colours);
    const tilesPath = join(root, 'tiles.json');
    await writeFile(tilesPath, JSON.stringify(tiles));
    const measured = await repeat(runs, async (): Promise<TileRun> => {
      const cold = await timer.cold(tiles);
      const warm = await timer.warm(tiles);
      const peer = await peerTimes(`ZARR:"${store}":/precip:{period}`, colours, tilesPath, root);
      return {
        cold: { stratus: summary(cold), peer: summary(peer.library) },
        warm: { stratus: summary(warm), peer: summary(peer.kept_open) },
        cli: summary(peer.cli),
      };
    });
    return { tiles: tiles.length, zooms, runs: measured };
  } finally {
    await cluster.close();
    await rm(root, { recursive: true, force: true });
  }
}

export const PEER_CONFIGURATION = 'GDAL 3.6 library in one process (Warp + DEMProcessing color-relief), 1 thread';

const states = [
  { state: 'cold', peer: 'store opened per tile', pick: (r: TileRun) => r.cold },
  { state: 'warm', peer: "each period's dataset kept open", pick: (r: TileRun) => r.warm },
] as const;

/** The table: per run, each state's p50 and p95 on both sides, and the command-line peer; then the medians. */
export function tilesReport({ tiles, zooms, runs }: TileFigures): string[] {
  const ms = (l: Latency) => `${l.p50.toFixed(1)} / ${l.p95.toFixed(1)}`;
  return [
    `Map tiles, ${tiles} tiles of zooms ${zooms.join(' to ')} over a 2000 x 1500 daily grid, one request at a time, ${runs.length} runs: ms per tile (p50 / p95); ratio of p50s`,
    '| run | state | Stratus | peer: GDAL 3.6 library | ratio | GDAL 3.6 gdalwarp + gdaldem per tile |',
    '| --- | --- | --- | --- | --- | --- |',
    ...runs.flatMap((r, i) =>
      states.map(({ state, peer, pick }) => {
        const sides = pick(r);
        return `| ${i + 1} | ${state} | ${ms(sides.stratus)} | ${ms(sides.peer)} (${peer}) | ${times(sides.peer.p50 / sides.stratus.p50)} | ${ms(r.cli)} |`;
      }),
    ),
    ...states.map(
      ({ state, pick }) =>
        `Median (range) of the p50 ratio, ${state}: ${medianRange(
          runs.map(pick).map((s) => s.peer.p50 / s.stratus.p50),
          times,
        )}`,
    ),
  ];
}

/** The rows of the table of current figures: p50 latency cold and warm. */
export function tilesHeadlines({ tiles, runs }: TileFigures): Headline[] {
  return states.map(({ state, peer, pick }) => ({
    figure: `map tile p50 latency, ${state}, ${tiles} tiles of zooms 4 to 10`,
    peer: `${PEER_CONFIGURATION}, ${peer}`,
    ratios: runs.map(pick).map((s) => s.peer.p50 / s.stratus.p50),
    command: 'node bench/tiles.ts',
  }));
}

export const tilesOptions = (env: NodeJS.ProcessEnv) =>
  [Number(env.BENCH_TILE_PERIODS ?? 8), Number(env.BENCH_TILES_PER_ZOOM ?? 16)] as const;

if (import.meta.main) {
  console.log(tilesReport(await benchTiles(...tilesOptions(process.env))).join('\n'));
  process.exit(0);
}
