/**
 * Zonal means of an in-memory float32 cube (T time steps of H × W pixels) over polygons that do not overlap,
 * against the numpy peers of `zonal-peer.py` (Debian's numpy, one thread), on the same data in one run:
 * - Stratus by pixel centre (`aggregate_spatial` with `mean`) against the faster of the peer's `window` (each
 *   polygon's mask over its window, one reduction over all time steps) and `labels` (a label grid and
 *   `np.bincount` per step);
 * - Stratus with `weighting: "coverage"` (exact cell fractions, computed once per call), against the same
 *   pixel-centre peer (the goal) and against the peer's `coverage` (shapely's fractions over each window).
 * Both sides include turning the polygons into pixels. The cube is written to a raw file for the peers once.
 * Stratus runs with one worker thread (first, like for like with the peers), then with `threads`. The first call
 * of the process is the like-for-like row, after the warm-up a listening server runs (`warmZonal`, on made-up
 * data); a third call on the same worker, against the peers' second pass in their process, is what a server's
 * later requests take.
 * Each peer's means are checked against Stratus's (`PEER_TOLERANCE`); reports seconds, CPU seconds, the largest
 * differences and the peak RSS.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataCube } from '../core/processing/cube/cube.ts';
import { memoryCube } from '../core/processing/cube/memory.ts';
import { materialize } from '../core/processing/cube/read.ts';
import { runProcessGraph } from '../core/processing/engine.ts';
import { ZONAL_CHUNK } from '../core/processing/zonal/chunk-task.ts';
import { warmZonal } from '../core/processing/zonal/warm-up.ts';
import { closeProcessPool, configureProcessPool } from '../core/workers/pool.ts';
import { python } from '../test/support/python.ts';

const PEER = join(import.meta.dirname, 'zonal-peer.py');
/**
 * The largest difference allowed between a peer's mean and Stratus's: numpy's `nanmean` adds float32 values in
 * float32 (pairwise), Stratus in float64; the values are 0 to 100.
 */
export const PEER_TOLERANCE = 1e-3;

/** What `zonal-peer.py` prints: seconds of each part, CPU seconds, peak memory, means polygon-major (null: NaN). */
export interface PeerRun {
  read_seconds: number;
  mask_seconds: number;
  reduce_seconds: number;
  cpu_seconds: number;
  /** The masks and means computed a second time in the same process, when asked (`again`). */
  again_seconds: number | null;
  again_cpu_seconds: number | null;
  peak_rss_megabytes: number;
  means: (number | null)[][];
}

export type PeerMethod = 'window' | 'labels' | 'coverage';

/**
 * Runs the peer's `method` over `cube` (a raw float32 file or a `*.zarr` store) and the polygons; with `again`,
 * its masks and means twice in the same process.
 */
export function runPeer(
  method: PeerMethod,
  cube: string,
  size: readonly number[],
  polygonsPath: string,
  again = false,
) {
  const grid = [WEST, NORTH, SIZE].map(String);
  return readFile(PEER, 'utf8').then((script) =>
    python<PeerRun>(
      script,
      [method, cube, ...size.map(String), polygonsPath, ...grid, ...(again ? ['again'] : [])],
      3_600_000,
    ),
  );
}

/** The peer's wall seconds from its data in memory: the masks (or weights) and the reduction, and the read. */
export const peerSeconds = (peer: PeerRun) => peer.read_seconds + peer.mask_seconds + peer.reduce_seconds;

/**
 * The largest difference between the peer's means and Stratus's (geometry-major, `steps` per geometry); throws
 * when it is above `PEER_TOLERANCE` or when one side has a mean where the other has none.
 */
export function peerDifference(method: PeerMethod, peer: PeerRun, values: ArrayLike<number>, steps: number): number {
  let largest = 0;
  peer.means.forEach((series, g) =>
    series.forEach((m, t) => {
      const mine = values[g * steps + t]!;
      const difference = m === null ? (Number.isNaN(mine) ? 0 : Infinity) : Math.abs(m - mine);
      largest = Math.max(largest, Number.isNaN(difference) ? Infinity : difference);
    }),
  );
  if (!(largest <= PEER_TOLERANCE))
    throw new Error(`the ${method} peer's means differ from Stratus's by ${largest} (tolerance ${PEER_TOLERANCE})`);
  return largest;
}
/** Grid: 0.001° pixels from 7°E, 52°N. */
export const GRID = { west: 7, north: 52, size: 0.001 };
const { west: WEST, north: NORTH, size: SIZE } = GRID;

export interface ZonalFigures {
  steps: number;
  height: number;
  width: number;
  polygons: number;
  /** Worker threads of the best-effort runs. */
  threads: number;
  /** Wall and CPU seconds (user + system, all threads) of each run; `single`: one worker thread. */
  centre: Timing;
  coverage: Timing;
  singleCentre: Timing;
  singleCoverage: Timing;
  /**
   * Pixel centre with one worker thread that has run the same work twice before (centre, then coverage), as a
   * server's later requests find it; against the peers' second pass in their process (`warmWindow`, `warmLabels`).
   */
  warmCentre: Timing;
  warmWindow: Timing;
  warmLabels: Timing;
  /** The peers: pixel centre by windows and by a label grid, and coverage fractions by windows. */
  window: Timing;
  labels: Timing;
  peerCoverage: Timing;
  /** The faster pixel-centre peer. */
  fasterPeer: 'window' | 'labels';
  /** Largest differences of the centre means from the pixel-centre peers', and of the coverage means. */
  maxDifference: number;
  coverageDifference: number;
  peakRssMegabytes: number;
}

export interface Timing {
  seconds: number;
  cpuSeconds: number;
}

/**
 * Star-shaped polygons of 24 vertices, one in each cell of a grid over the raster and inside it (90 % of the
 * cell's half-width at most), so that no two overlap, as the label-grid peer needs; 150 polygons over 1000 × 1000
 * pixels are about 55 to 70 pixels across.
 */
export function polygons(count: number, height: number, width: number) {
  const columns = Math.ceil(Math.sqrt((count * width) / height));
  const rows = Math.ceil(count / columns);
  const reach = Math.min(width / columns, height / rows) / 2;
  return {
    type: 'FeatureCollection',
    features: Array.from({ length: count }, (_, k) => {
      const cx = WEST + ((k % columns) + 0.5) * (width / columns) * SIZE;
      const cy = NORTH - (Math.floor(k / columns) + 0.5) * (height / rows) * SIZE;
      const ring = Array.from({ length: 24 }, (_, v) => {
        const angle = (2 * Math.PI * v) / 24;
        const radius = SIZE * reach * (v % 2 === 0 ? 0.9 : 0.5) * (0.8 + (0.2 * ((k * 7919) % 13)) / 13);
        return [cx + radius * Math.cos(angle), cy + radius * Math.sin(angle)];
      });
      return {
        type: 'Feature',
        id: `p${k}`,
        properties: {},
        geometry: { type: 'Polygon', coordinates: [[...ring, ring[0]]] },
      };
    }),
  };
}

/** The cube's values: 1 % NaN, the rest spread over 0 to 100. */
export function syntheticValues(steps: number, height: number, width: number): Float32Array {
  const data = new Float32Array(steps * height * width);
  for (let i = 0; i < data.length; i++) data[i] = i % 97 === 0 ? NaN : ((i * 2654435761) % 1000) / 10;
  return data;
}

function cube(steps: number, height: number, width: number): { cube: DataCube; data: Float32Array } {
  const data = syntheticValues(steps, height, width);
  const coordinate = (origin: number, step: number, n: number) =>
    Array.from({ length: n }, (_, i) => origin + (i + 0.5) * step);
  const cube = memoryCube({
    dimensions: [
      {
        name: 't',
        type: 'temporal',
        labels: Array.from({ length: steps }, (_, i) => new Date(Date.UTC(2024, 0, 1 + i)).toISOString()),
      },
      {
        name: 'y',
        type: 'spatial',
        axis: 'y',
        labels: coordinate(NORTH, -SIZE, height),
        crs: 'EPSG:4326',
        step: -SIZE,
      },
      { name: 'x', type: 'spatial', axis: 'x', labels: coordinate(WEST, SIZE, width), crs: 'EPSG:4326', step: SIZE },
    ],
    data,
    // Chunks as a store holds daily data: the whole time axis, 256 × 256 pixels.
    chunkShape: [steps, 256, 256],
  });
  return { cube, data };
}

export async function zonalMeans(data: DataCube, geometries: unknown, weighting: 'centre' | 'coverage') {
  const graph = {
    zonal: {
      process_id: 'aggregate_spatial',
      arguments: {
        data,
        geometries,
        reducer: {
          process_graph: { m: { process_id: 'mean', arguments: { data: { from_parameter: 'data' } }, result: true } },
        },
        weighting,
      },
      result: true,
    },
  };
  const start = performance.now();
  const cpu = process.cpuUsage();
  const result = (await runProcessGraph(graph)) as DataCube;
  const values = await materialize(result, 1e9);
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - start) / 1000, cpuSeconds: (used.user + used.system) / 1e6, values };
}

export async function benchZonalStats(
  steps = 36,
  height = 1000,
  width = 1000,
  count = 150,
  threads = availableParallelism(),
): Promise<ZonalFigures> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-zonal-'));
  try {
    const { cube: data, data: values } = cube(steps, height, width);
    const geometries = polygons(count, height, width);
    const raw = join(root, 'cube.f32');
    const polygonsPath = join(root, 'polygons.geojson');
    await writeFile(raw, values);
    await writeFile(polygonsPath, JSON.stringify(geometries));
    // Workers started and the zonal code compiled before the clock, as a listening server's are (`warmZonal` on
    // made-up data, not this cube or these polygons), like the peer's imports, and the previous pool's ended before
    // it (their teardown would count in this process's CPU time). One worker first, like for like with the peers.
    await closeProcessPool();
    await configureProcessPool(1).warm(ZONAL_CHUNK);
    await warmZonal();
    const singleCentre = await zonalMeans(data, geometries, 'centre');
    const singleCoverage = await zonalMeans(data, geometries, 'coverage');
    const warmCentre = await zonalMeans(data, geometries, 'centre');
    await closeProcessPool();
    await configureProcessPool(threads).warm(ZONAL_CHUNK);
    const centre = await zonalMeans(data, geometries, 'centre');
    const coverage = await zonalMeans(data, geometries, 'coverage');
    for (const [one, many] of [
      [singleCentre, centre],
      [singleCoverage, coverage],
      [warmCentre, centre],
    ])
      if (one.values.some((m, i) => !Object.is(m, many.values[i])))
        throw new Error('one worker thread and many gave different means');
    const size = [steps, height, width];
    const window = await runPeer('window', raw, size, polygonsPath, true);
    const labels = await runPeer('labels', raw, size, polygonsPath, true);
    const peerCoverage = await runPeer('coverage', raw, size, polygonsPath);
    const timing = (peer: PeerRun): Timing => ({ seconds: peerSeconds(peer), cpuSeconds: peer.cpu_seconds });
    const again = (peer: PeerRun): Timing => ({ seconds: peer.again_seconds!, cpuSeconds: peer.again_cpu_seconds! });
    return {
      steps,
      height,
      width,
      polygons: count,
      threads,
      centre,
      coverage,
      singleCentre,
      singleCoverage,
      warmCentre,
      warmWindow: again(window),
      warmLabels: again(labels),
      window: timing(window),
      labels: timing(labels),
      peerCoverage: timing(peerCoverage),
      fasterPeer: peerSeconds(window) <= peerSeconds(labels) ? 'window' : 'labels',
      maxDifference: Math.max(
        peerDifference('window', window, centre.values, steps),
        peerDifference('labels', labels, centre.values, steps),
      ),
      coverageDifference: peerDifference('coverage', peerCoverage, coverage.values, steps),
      peakRssMegabytes: process.resourceUsage().maxRSS / 1024,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
