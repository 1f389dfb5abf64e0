/**
 * Stratus's side of the ingestion bench as a worker runs it: a process of its own started with the worker's Node
 * flags (operator/worker/node-flags.ts), reading the chirps provider's COGs through the read-ahead into a Zarr
 * cube. `node <worker flags> bench/ingestion-worker.ts BASE_URL FIRST_DAY LAST_DAY OUT` prints one JSON line: its
 * Timing (wall and CPU seconds of every thread, the process start excluded) and the grid's size.
 */
import { periodRange } from '../core/periods/index.ts';
import { chirpsProvider } from '../core/providers/chirps.ts';
import { readInOrder } from '../core/providers/read-ahead.ts';
import { RasterCubeWriter } from '../core/stores/raster-cube.ts';
import { SIERRA_LEONE, timed } from './rasters.ts';

const [base, first, last, out] = process.argv.slice(2) as [string, string, string, string];
const periods = periodRange('daily', first, last);
let size: [number, number] = [0, 0];
const timing = await timed(async () => {
  const session = await chirpsProvider.open({
    parameters: { baseUrl: base },
    bbox: SIERRA_LEONE,
    signal: new AbortController().signal,
  });
  size = [session.grid.lat.length, session.grid.lon.length];
  const writer = await RasterCubeWriter.create(out, {
    variable: 'precip',
    periodType: 'daily',
    periods,
    grid: session.grid,
    attributes: {},
  });
  for await (const values of readInOrder(session, periods)) await writer.append(values);
  await writer.finish();
});
console.log(JSON.stringify({ ...timing, size }));
