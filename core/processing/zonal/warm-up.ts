/**
 * A zonal mean run once on made-up data, so that a fresh process's first zonal request does not pay for
 * compiling the engine's code: turning polygons into pixels, building the runs (this thread) and summing them
 * (the pool's workers) are each compiled as they first run, and on a first request of a year of daily data
 * over a thousand pixels square that costs about as much as the request's own work. The code compiles only once
 * it has run a while, so the made-up request is of a real grid and polygons, but of few time steps: it takes
 * a tenth of a second or so, once, after the server starts listening. It runs twice, over chunks lent from
 * shared WebAssembly memory (the SIMD kernel's way, an in-memory cube's) and over chunks handed over as a
 * stored cube's decoded ones are (the JavaScript loop's way).
 */
import { materialize } from '../cube/read.ts';
import { memoryCube } from '../cube/memory.ts';
import { DataCube } from '../cube/cube.ts';
import { runProcessGraph } from '../engine.ts';

/** Pixels along each side of the made-up grid, time steps, and polygons along each side of the grid. */
const SIDE = 1000;
const STEPS = 2;
const POLYGONS_PER_SIDE = 12;
/** Pixel size in degrees. */
const STEP = 0.001;

/** Polygons of 16 vertices, one in each cell of a `POLYGONS_PER_SIDE` square grid over the raster. */
function polygons() {
  const cell = (SIDE * STEP) / POLYGONS_PER_SIDE;
  return {
    type: 'FeatureCollection',
    features: Array.from({ length: POLYGONS_PER_SIDE ** 2 }, (_, k) => {
      const cx = ((k % POLYGONS_PER_SIDE) + 0.5) * cell;
      const cy = -(Math.floor(k / POLYGONS_PER_SIDE) + 0.5) * cell;
      const ring = Array.from({ length: 16 }, (_, v) => {
        const angle = (2 * Math.PI * v) / 16;
        const radius = (cell / 2) * (v % 2 === 0 ? 0.9 : 0.6);
        return [cx + radius * Math.cos(angle), cy + radius * Math.sin(angle)];
      });
      return { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[...ring, ring[0]]] } };
    }),
  };
}

function madeUpCube(): DataCube {
  const coordinate = (origin: number, step: number) =>
    Array.from({ length: SIDE }, (_, i) => origin + (i + 0.5) * step);
  const data = new Float32Array(STEPS * SIDE * SIDE);
  for (let i = 0; i < data.length; i++) data[i] = i % 97 === 0 ? NaN : i % 100;
  return memoryCube({
    dimensions: [
      {
        name: 't',
        type: 'temporal',
        labels: Array.from({ length: STEPS }, (_, i) => new Date(Date.UTC(2000, 0, 1 + i)).toISOString()),
      },
      { name: 'y', type: 'spatial', axis: 'y', labels: coordinate(0, -STEP), crs: 'EPSG:4326', step: -STEP },
      { name: 'x', type: 'spatial', axis: 'x', labels: coordinate(0, STEP), crs: 'EPSG:4326', step: STEP },
    ],
    data,
    chunkShape: [STEPS, 256, 256],
  });
}

/** Runs a pixel-centre zonal mean on made-up data through the engine, on this thread and the process's pool. */
export async function warmZonal(): Promise<void> {
  const lent = madeUpCube();
  // The same chunks, read (a copy each, handed to the worker) rather than lent.
  const read = new DataCube({ metadata: lent.source.metadata, readChunk: (index) => lent.source.readChunk(index) });
  for (const data of [lent, read]) await zonalMean(data);
}

async function zonalMean(data: DataCube): Promise<void> {
  const result = await runProcessGraph({
    zonal: {
      process_id: 'aggregate_spatial',
      arguments: {
        data,
        geometries: polygons(),
        reducer: {
          process_graph: { m: { process_id: 'mean', arguments: { data: { from_parameter: 'data' } }, result: true } },
        },
      },
      result: true,
    },
  });
  await materialize(result as DataCube, Infinity);
}
