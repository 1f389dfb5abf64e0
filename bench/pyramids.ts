/**
 * Map tiles at small zooms over a large grid, with and without multiscale levels: zooms 3 to 6 of a 4000 × 4000
 * daily store at 0.01°, served by Stratus from a store written without levels and from the same data with levels
 * (core/stores/pyramid.ts), and by GDAL from the same data as one tiled GeoTIFF per period with overviews
 * (`gdal_translate` of the Zarr period, then `gdaladdo -r average 2 4 8 16`), which gdalwarp picks by the output
 * resolution. Each side cold and warm as in bench/tiles.ts (the same timer and the same peer script): Stratus a
 * fresh server per tile, then a server that served every tile once; GDAL's library the file opened per tile, then
 * each period's file kept open. The ratios are the medians of the runs' p50 ratios.
 *
 * `node bench/pyramids.ts` runs it alone (BENCH_PYRAMID_SIZE cells a side, BENCH_PYRAMID_PERIODS,
 * BENCH_PYRAMID_TILES_PER_ZOOM, BENCH_RUNS).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openEmbeddedCluster } from '../core/cluster/embedded/index.ts';
import { openStoredLevels } from '../core/processing/collections/stored-cube.ts';
import { directoryStore } from '../core/stores/directory-store.ts';
import { versionPath } from '../core/stores/layout.ts';
import type { Headline } from './headline.ts';
import { benchRuns, medianRange, repeat, times } from './summary.ts';
import {
  peerTimes,
  PEER_CONFIGURATION,
  summary,
  tileList,
  tileTimer,
  writeBenchStore,
  writeColours,
  type BenchGrid,
  type Latency,
} from './tiles.ts';

const run = promisify(execFile);

export interface PyramidOptions {
  /** Cells a side of the square grid. */
  size: number;
  periods: number;
  tilesPerZoom: number;
  runs: number;
}

/** One state (cold or warm) of one run: each side's seconds per tile, in the order of the tiles. */
interface PyramidSides {
  flat: number[];
  levels: number[];
  gdal: number[];
}

interface PyramidRun {
  cold: PyramidSides;
  warm: PyramidSides;
}

export interface PyramidFigures {
  options: PyramidOptions;
  /** The zoom of each tile, in the order of the tiles. */
  zooms: number[];
  /** Multiscale levels of the store with levels. */
  levels: number;
  runs: PyramidRun[];
}

const ZOOMS: [number, number] = [3, 6];
const OVERVIEWS = ['2', '4', '8', '16'];

export const pyramidOptions = (env: NodeJS.ProcessEnv): PyramidOptions => ({
  size: Number(env.BENCH_PYRAMID_SIZE ?? 4000),
  periods: Number(env.BENCH_PYRAMID_PERIODS ?? 2),
  tilesPerZoom: Number(env.BENCH_PYRAMID_TILES_PER_ZOOM ?? 6),
  runs: benchRuns(env),
});

/** A tiled, deflated GeoTIFF of one period of the Zarr store, with average overviews, as GDAL users build one. */
async function geoTiffWithOverviews(store: string, period: number, path: string) {
  const deflate = ['-co', 'TILED=YES', '-co', 'BLOCKXSIZE=256', '-co', 'BLOCKYSIZE=256', '-co', 'COMPRESS=DEFLATE'];
  // The Zarr store's own compression is zlib at level 1: the same codec and level on both sides.
  await run('gdal_translate', [
    '-q',
    ...deflate,
    '-co',
    'ZLEVEL=1',
    '-a_srs',
    'EPSG:4326',
    `ZARR:"${store}":/precip:${period}`,
    path,
  ]);
  await run('gdaladdo', [
    '-q',
    '-r',
    'average',
    '--config',
    'COMPRESS_OVERVIEW',
    'DEFLATE',
    '--config',
    'ZLEVEL_OVERVIEW',
    '1',
    path,
    ...OVERVIEWS,
  ]);
}

export async function benchPyramids(options: PyramidOptions): Promise<PyramidFigures> {
  const { size, periods: steps, tilesPerZoom, runs } = options;
  // Centred on the equator, so that zooms 3 to 6 are the zooms whose tiles a level can draw.
  const grid: BenchGrid = { west: -size * 0.005, north: size * 0.005, size: 0.01, width: size, height: size };
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-pyramids-'));
  const storageRoot = join(root, 'store');
  const cluster = await openEmbeddedCluster({ dataDir: join(root, 'cluster') });
  try {
    const flatStore = join(storageRoot, versionPath('flat', 'v1'));
    const levelStore = join(storageRoot, versionPath('levels', 'v1'));
    const periods = await writeBenchStore(flatStore, grid, steps, false);
    await writeBenchStore(levelStore, grid, steps);
    const gtiffs = Array.from({ length: steps }, (_, t) => join(root, `period-${t}.tif`));
    for (const [t, path] of gtiffs.entries()) await geoTiffWithOverviews(flatStore, t, path);

    const flat = await tileTimer(cluster, storageRoot, 'flat', periods);
    const levels = await tileTimer(cluster, storageRoot, 'levels', periods);
    const tiles = tileList(grid, ZOOMS, tilesPerZoom, steps);
    await flat.warmUp(tiles);
    await levels.warmUp(tiles);
    const colours = join(root, 'colours.txt');
    await writeColours(colours);
    const tilesPath = join(root, 'tiles.json');
    await writeFile(tilesPath, JSON.stringify(tiles));

    const measured = await repeat(runs, async (): Promise<PyramidRun> => {
      const cold = { flat: await flat.cold(tiles), levels: await levels.cold(tiles) };
      const warm = { flat: await flat.warm(tiles), levels: await levels.warm(tiles) };
      const gdal = await peerTimes(join(root, 'period-{period}.tif'), colours, tilesPath, root);
      return { cold: { ...cold, gdal: gdal.library }, warm: { ...warm, gdal: gdal.kept_open } };
    });
    const levelCount = (await openStoredLevels(directoryStore(levelStore))).length - 1;
    return { options, zooms: tiles.map((t) => t.z), levels: levelCount, runs: measured };
  } finally {
    await cluster.close();
    await rm(root, { recursive: true, force: true });
  }
}

const states = [
  { state: 'cold', gdal: 'file opened per tile', pick: (r: PyramidRun) => r.cold },
  { state: 'warm', gdal: "each period's file kept open", pick: (r: PyramidRun) => r.warm },
] as const;

const GDAL_PEER = `${PEER_CONFIGURATION}, tiled deflate GeoTIFF with gdaladdo -r average ${OVERVIEWS.join(' ')}`;

/** p50 and p95 of each side over the tiles `keep` selects. */
function latencies(sides: PyramidSides, keep: (tile: number) => boolean) {
  const of = (seconds: number[]) => summary(seconds.filter((_, tile) => keep(tile)));
  return { flat: of(sides.flat), levels: of(sides.levels), gdal: of(sides.gdal) };
}

/**
 * The table: per run and state, each side's p50 and p95 over all tiles and the ratios of p50s; then the medians;
 * then each zoom's p50 over the runs' tiles, where the levels show at the smallest zooms.
 */
export function pyramidsReport({ options, zooms, levels, runs }: PyramidFigures): string[] {
  const ms = (l: Latency) => `${l.p50.toFixed(1)} / ${l.p95.toFixed(1)}`;
  const all = () => true;
  const zoomList = [...new Set(zooms)];
  return [
    `Map tiles over multiscale levels: ${zooms.length} tiles of zooms ${ZOOMS.join(' to ')} over a ${options.size} x ${options.size} daily grid (${options.periods} periods, ${levels} levels), one request at a time, ${runs.length} runs: ms per tile (p50 / p95)`,
    '| run | state | Stratus, no levels | Stratus, levels | GDAL 3.6, GeoTIFF with overviews | no levels / levels | GDAL / Stratus with levels |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...runs.flatMap((r, i) =>
      states.map(({ state, pick }) => {
        const s = latencies(pick(r), all);
        return `| ${i + 1} | ${state} | ${ms(s.flat)} | ${ms(s.levels)} | ${ms(s.gdal)} | ${times(s.flat.p50 / s.levels.p50)} | ${times(s.gdal.p50 / s.levels.p50)} |`;
      }),
    ),
    ...states.map(({ state, pick }) => {
      const sides = runs.map((r) => latencies(pick(r), all));
      return (
        `Median (range) of the p50 ratios, ${state}: no levels / levels ${medianRange(
          sides.map((s) => s.flat.p50 / s.levels.p50),
          times,
        )}, ` +
        `GDAL / Stratus with levels ${medianRange(
          sides.map((s) => s.gdal.p50 / s.levels.p50),
          times,
        )}`
      );
    }),
    '',
    'p50 ms per zoom, the tiles of every run together: no levels / levels / GDAL',
    `| zoom | tiles | ${states.map(({ state }) => state).join(' | ')} |`,
    `| --- | --- | ${states.map(() => '---').join(' | ')} |`,
    ...zoomList.map((z) => {
      const inZoom = (tile: number) => zooms[tile] === z;
      const cells = states.map(({ pick }) => {
        const joined = (side: keyof PyramidSides) => runs.flatMap((r) => pick(r)[side].filter((_, t) => inZoom(t)));
        const p50 = (side: keyof PyramidSides) => summary(joined(side)).p50.toFixed(1);
        return `${p50('flat')} / ${p50('levels')} / ${p50('gdal')}`;
      });
      return `| ${z} | ${zooms.filter((zoom) => zoom === z).length} | ${cells.join(' | ')} |`;
    }),
  ];
}

/** The rows of the table of current figures: against GDAL with overviews, and against the same store without levels. */
export function pyramidsHeadlines({ options, zooms, runs }: PyramidFigures): Headline[] {
  const what = `${zooms.length} tiles of zooms 3 to 6 over ${options.size} x ${options.size} cells with levels`;
  const all = () => true;
  return states.flatMap(({ state, gdal, pick }) => {
    const sides = runs.map((r) => latencies(pick(r), all));
    return [
      {
        figure: `map tile p50 latency, ${state}, ${what}`,
        peer: `${GDAL_PEER}, ${gdal}`,
        ratios: sides.map((s) => s.gdal.p50 / s.levels.p50),
        command: 'node bench/pyramids.ts',
      },
      {
        figure: `map tile p50 latency, ${state}, ${what}, against the store without levels`,
        peer: 'Stratus on the same data written without levels',
        ratios: sides.map((s) => s.flat.p50 / s.levels.p50),
        command: 'node bench/pyramids.ts',
      },
    ];
  });
}

if (import.meta.main) {
  console.log(pyramidsReport(await benchPyramids(pyramidOptions(process.env))).join('\n'));
  process.exit(0);
}
