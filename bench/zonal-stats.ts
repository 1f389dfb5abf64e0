/**
 * Zonal means of an in-memory float32 cube (T time steps of H × W pixels) over polygons, against a numpy peer
 * that masks per polygon and time step (`zonal-peer.py`, Debian's numpy), on the same data in one run:
 * - Stratus by pixel centre (`aggregate_spatial` with `mean`), the figure the issue compares at ≥ 3× the peer;
 * - Stratus with `weighting: "coverage"` (exact cell fractions), compared with the peer's pixel-centre figure
 *   (goal ≥ 1×).
 * Both sides include turning the polygons into pixels. The cube is written to a raw file for the peer once.
 * Stratus runs with a worker thread per core (`threads`, the default of `processing.worker_threads`), and its
 * pixel-centre figure with one worker thread too (first), like for like with the single-threaded peer.
 * Reports seconds, the ratios, the largest difference of the centre means from the peer's, and the peak RSS.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataCube } from '../core/processing/cube/cube.ts';
import { memoryCube } from '../core/processing/cube/memory.ts';
import { materialize } from '../core/processing/cube/read.ts';
import { runProcessGraph } from '../core/processing/engine.ts';
import { ZONAL_CHUNK } from '../core/processing/zonal/chunk-task.ts';
import { configureProcessPool } from '../core/workers/pool.ts';
import { python } from '../test/support/python.ts';

const PEER = join(import.meta.dirname, 'zonal-peer.py');
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
  centreSeconds: number;
  coverageSeconds: number;
  /** Pixel centre with one worker thread. */
  singleCentreSeconds: number;
  singleCentreCpuSeconds: number;
  peerSeconds: number;
  /** CPU seconds (user + system) of the same three runs: steadier than wall clock on a shared machine. */
  centreCpuSeconds: number;
  coverageCpuSeconds: number;
  peerCpuSeconds: number;
  peerMaskSeconds: number;
  maxDifference: number;
  peakRssMegabytes: number;
}

/** Star-shaped polygons of 24 vertices on a grid over the raster, about 40 to 90 pixels across. */
export function polygons(count: number, height: number, width: number) {
  const columns = Math.ceil(Math.sqrt((count * width) / height));
  const rows = Math.ceil(count / columns);
  return {
    type: 'FeatureCollection',
    features: Array.from({ length: count }, (_, k) => {
      const cx = WEST + ((k % columns) + 0.5) * (width / columns) * SIZE;
      const cy = NORTH - (Math.floor(k / columns) + 0.5) * (height / rows) * SIZE;
      const ring = Array.from({ length: 24 }, (_, v) => {
        const angle = (2 * Math.PI * v) / 24;
        const radius = SIZE * (v % 2 === 0 ? 45 : 25) * (0.8 + (0.4 * ((k * 7919) % 13)) / 13);
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
    await writeFile(raw, values);
    await writeFile(join(root, 'polygons.geojson'), JSON.stringify(geometries));
    // Workers started before the clock, as a server's are, like the peer's imports. One worker first: the first
    // run of the process also compiles the engine's code, which counts against the like-for-like row.
    await configureProcessPool(1).warm(ZONAL_CHUNK);
    const single = await zonalMeans(data, geometries, 'centre');
    await configureProcessPool(threads).warm(ZONAL_CHUNK);
    const centre = await zonalMeans(data, geometries, 'centre');
    const coverage = await zonalMeans(data, geometries, 'coverage');
    if (single.values.some((m, i) => !Object.is(m, centre.values[i])))
      throw new Error('one worker thread and many gave different means');
    const peer = await python<{ mask_seconds: number; reduce_seconds: number; cpu_seconds: number; means: number[][] }>(
      await readFile(PEER, 'utf8'),
      [
        raw,
        String(steps),
        String(height),
        String(width),
        join(root, 'polygons.geojson'),
        String(WEST),
        String(NORTH),
        String(SIZE),
      ],
      3_600_000,
    );
    let maxDifference = 0;
    peer.means.forEach((series, g) =>
      series.forEach((m, t) => (maxDifference = Math.max(maxDifference, Math.abs(m - centre.values[g * steps + t]!)))),
    );
    return {
      steps,
      height,
      width,
      polygons: count,
      threads,
      centreSeconds: centre.seconds,
      coverageSeconds: coverage.seconds,
      singleCentreSeconds: single.seconds,
      singleCentreCpuSeconds: single.cpuSeconds,
      peerSeconds: peer.mask_seconds + peer.reduce_seconds,
      centreCpuSeconds: centre.cpuSeconds,
      coverageCpuSeconds: coverage.cpuSeconds,
      peerCpuSeconds: peer.cpu_seconds,
      peerMaskSeconds: peer.mask_seconds,
      maxDifference,
      peakRssMegabytes: process.resourceUsage().maxRSS / 1024,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
