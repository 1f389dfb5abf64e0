/**
 * Raster write paths against their peers in one run (issue 4):
 * - Zarr writing: RasterCubeWriter against zarr-python 2.13 (Debian) writing the same cube, chunks and codec;
 * - ingestion: a year of daily CHIRPS-like COG windows over a country through the chirps provider into Zarr,
 *   against GDAL reading the same windows over HTTP (/vsicurl/) with zarr-python writing them.
 * Both sides fetch from the same nginx. Figures are MB/s of float32 cube written, and periods/s.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatPeriod, periodRange } from '../core/periods/index.ts';
import { chirpsProvider, chirpsUrl } from '../core/providers/chirps.ts';
import { readInOrder } from '../core/providers/read-ahead.ts';
import { sampleProvider } from '../core/providers/sample.ts';
import { chunkShape, RasterCubeWriter } from '../core/stores/raster-cube.ts';
import { python } from '../test/support/python.ts';
import { startNginx } from './peers.ts';

const PEER = join(import.meta.dirname, 'raster-peer.py');
const MAKE_COGS = join(import.meta.dirname, '../test/fixtures/providers/make-cogs.py');
export const SIERRA_LEONE: [number, number, number, number] = [-13.5, 6.9, -10.2, 10.0];

export interface RasterFigures {
  zarrWrite: { megabytes: number; stratusMBps: number; peerMBps: number };
  ingestion: { periods: number; stratusPerSecond: number; peerPerSecond: number };
}

async function benchZarrWrite(root: string, days: number) {
  const periods = periodRange(
    'daily',
    '2024-01-01',
    formatPeriod({ type: 'daily', start: new Date(Date.UTC(2024, 0, days)) }),
  );
  const session = await sampleProvider.open({
    parameters: { resolution: 0.01 },
    bbox: SIERRA_LEONE,
    signal: new AbortController().signal,
  });
  const planes = await Promise.all(periods.map((p) => session.read(p)));
  const [ny, nx] = [session.grid.lat.length, session.grid.lon.length];
  const bytes = planes.length * ny * nx * 4;
  const start = performance.now();
  const writer = await RasterCubeWriter.create(join(root, 'stratus.zarr'), {
    variable: 'value',
    periodType: 'daily',
    periods,
    grid: session.grid,
    attributes: {},
  });
  for (const plane of planes) await writer.append(plane);
  await writer.finish();
  const stratusSeconds = (performance.now() - start) / 1000;

  const raw = join(root, 'cube.f32');
  await writeFile(raw, Buffer.concat(planes.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))));
  const [ct, cy, cx] = chunkShape(planes.length, ny, nx);
  const peer = await python<{ seconds: number }>(
    await readFile(PEER, 'utf8'),
    ['zarr-write', raw, planes.length, ny, nx, ct, cy, cx, join(root, 'peer.zarr')].map(String),
    600_000,
  );
  const megabytes = bytes / 1e6;
  return { megabytes, stratusMBps: megabytes / stratusSeconds, peerMBps: megabytes / peer.seconds };
}

/**
 * `days` daily CHIRPS-like COGs from 2024-01-01 in CHC's layout under `dir`: a 20 x 20 degree region around the
 * country on CHIRPS's 0.05 degree grid (the global file would be 7200 x 2400). Returns the last day.
 */
export async function makeChirpsCogs(dir: string, days: number): Promise<string> {
  const last = formatPeriod({ type: 'daily', start: new Date(Date.UTC(2024, 0, days)) });
  await python(
    await readFile(MAKE_COGS, 'utf8'),
    [dir, 'rnl/cogs/%Y/chirps-v3.0.rnl.%Y.%m.%d.cog', '2024-01-01', last, '-20', '20', '0.05', '400', '400'],
    600_000,
  );
  return last;
}

async function benchIngestion(root: string, days: number) {
  const cogs = join(root, 'cogs');
  const last = await makeChirpsCogs(cogs, days);
  const nginx = await startNginx(join(root, 'nginx'), '/final/', cogs);
  try {
    const base = `${nginx.url}/final`;
    const periods = periodRange('daily', '2024-01-01', last);
    const start = performance.now();
    const session = await chirpsProvider.open({
      parameters: { baseUrl: base },
      bbox: SIERRA_LEONE,
      signal: new AbortController().signal,
    });
    const writer = await RasterCubeWriter.create(join(root, 'ingested.zarr'), {
      variable: 'precip',
      periodType: 'daily',
      periods,
      grid: session.grid,
      attributes: {},
    });
    for await (const values of readInOrder(session, periods)) await writer.append(values);
    await writer.finish();
    const stratusSeconds = (performance.now() - start) / 1000;

    const urls = join(root, 'urls.txt');
    await writeFile(urls, periods.map((p) => chirpsUrl(base, 'rnl', formatPeriod(p))).join('\n'));
    const [ct, cy, cx] = chunkShape(periods.length, session.grid.lat.length, session.grid.lon.length);
    const peer = await python<{ seconds: number }>(
      await readFile(PEER, 'utf8'),
      ['ingest', urls, ...SIERRA_LEONE, ct, cy, cx, join(root, 'peer-ingested.zarr')].map(String),
      600_000,
    );
    return {
      periods: periods.length,
      stratusPerSecond: periods.length / stratusSeconds,
      peerPerSecond: periods.length / peer.seconds,
    };
  } finally {
    await nginx.stop();
  }
}

export async function benchRasters(days = 366): Promise<RasterFigures> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-rasters-'));
  try {
    return { zarrWrite: await benchZarrWrite(root, days), ingestion: await benchIngestion(root, days) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
