/**
 * Climate indices end to end, in embedded mode with the sample weather of `make run` (one server start for all):
 * the openEO JavaScript client builds `load_collection` (sample-precipitation, mm day-1) -> `spi` or `etccdi_cdd`
 * -> `save_result` and computes it at `POST /result`, and the answer is the engine's index over the same served
 * store; SPI over a temperature store is refused with openEO's 400 naming the variable and the unit expected.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenEO } from '@openeo/js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { openStoredCube } from '../../core/processing/collections/stored-cube.ts';
import type { DataCube } from '../../core/processing/cube/cube.ts';
import { materialize } from '../../core/processing/cube/read.ts';
import { runProcessGraph } from '../../core/processing/engine.ts';
import type { CubeJson } from '../../core/processing/results/json.ts';
import { currentVersionOf, datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { directoryStore } from '../../core/stores/directory-store.ts';
import { startEmbedded } from '../support/embedded.ts';
import { eventually } from '../support/eventually.ts';

const BBOX = { west: -12, south: 8, east: -11.5, north: 8.5 };

/**
 * The JSON cube the openEO JavaScript client computes at `POST /result` for load_collection (sample-precipitation
 * over BBOX and `extent`) -> `process` (with `args`) -> save_result.
 */
async function clientIndex(process: string, args: Record<string, unknown>, extent: [string, string] | null) {
  const connection = await OpenEO.connect(running.url);
  const builder = await connection.buildProcess(process);
  const precipitation = builder.process('load_collection', {
    id: 'sample-precipitation',
    spatial_extent: BBOX,
    temporal_extent: extent,
  });
  const index = builder.process(process, { data: precipitation, ...args });
  const saved = builder.process('save_result', { data: index, format: 'JSON' });
  const { data } = await connection.computeResult(saved);
  const chunks: Buffer[] = [];
  for await (const chunk of data as AsyncIterable<Buffer>) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as CubeJson;
}

/** The engine's values of `process` (with `args`) over the served store, cut to BBOX and `extent`, NaN as null. */
async function engineValues(process: string, args: Record<string, unknown>, extent: [string, string] | null) {
  const cube = await openStoredCube(directoryStore(store));
  const direct = (await runProcessGraph({
    f: { process_id: 'filter_bbox', arguments: { data: cube, extent: BBOX } },
    ...(extent ? { t: { process_id: 'filter_temporal', arguments: { data: { from_node: 'f' }, extent } } } : {}),
    i: {
      process_id: process,
      arguments: { data: { from_node: extent ? 't' : 'f' }, ...args },
      result: true,
    },
  })) as DataCube;
  return Array.from(await materialize(direct, 1e7), (v) => (Number.isNaN(v) ? null : v));
}

/** One year of the sample (the end of a temporal extent is excluded). */
const YEAR: [string, string] = ['2022-01-01', '2023-01-01'];

let dataDir: string;
let running: RunningEmbedded;
let store: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stratus-indices-'));
  running = await startEmbedded(dataDir, { sampleWeather: true });
  const dataset = await eventually(
    async () => {
      const found = await running.cluster.get<Dataset>(datasetKind, 'sample-precipitation', 'default');
      return currentVersionOf(found) ? found : undefined;
    },
    { timeoutMs: 240_000, intervalMs: 250 },
  );
  store = join(dataDir, 'store', currentVersionOf(dataset)!.path);
}, 300_000);

afterAll(async () => {
  await running?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('climate indices over the sample precipitation through the openEO JavaScript client', () => {
  it('answers monthly SPI-3 for 2022-2024, as the engine computes it over the served store', async () => {
    const answer = await clientIndex('spi', { scale: 3, calibration_period: [2022, 2024] }, null);

    const time = answer.dimensions.find((d) => d.type === 'temporal')!;
    expect(time.labels).toHaveLength(36);
    expect([time.labels[0], time.labels[35]]).toEqual(['2022-01', '2024-12']);
    expect(answer.dimensions.find((d) => d.type === 'bands')!.labels).toEqual(['spi']);
    const values = (answer.data as unknown[]).flat(Infinity) as (number | null)[];
    const cells = values.length / 36;
    // Two months before three months of totals exist, then an index for nearly every cell and month.
    expect(values.slice(0, 2 * cells).every((v) => v === null)).toBe(true);
    const later = values.slice(2 * cells);
    expect(later.filter((v) => v !== null).length).toBeGreaterThan(0.8 * later.length);
    expect(later.every((v) => v === null || Math.abs(v) < 4)).toBe(true);

    // The engine itself over the same store and extent gives the same numbers.
    const expected = await engineValues('spi', { scale: 3, calibration_period: [2022, 2024] }, null);
    expect(values).toEqual(expected);
  }, 120_000);

  it('answers ETCCDI CDD for 2022, as the engine computes it over the served store', async () => {
    const answer = await clientIndex('etccdi_cdd', {}, YEAR);

    expect(answer.dimensions.find((d) => d.type === 'temporal')!.labels).toEqual(['2022']);
    const values = (answer.data as unknown[]).flat(Infinity) as (number | null)[];
    expect(values.length).toBeGreaterThan(0);
    // The sample has dry spells: every cell's longest is a whole number of days, at least one and within the year.
    expect(values.every((v) => v !== null && Number.isInteger(v) && v >= 1 && v <= 365)).toBe(true);
    expect(values).toEqual(await engineValues('etccdi_cdd', {}, YEAR));
  }, 120_000);

  it("refuses SPI over a stored variable whose units are no precipitation with openEO's 400 body", async () => {
    await eventually(
      async () => currentVersionOf(await running.cluster.get<Dataset>(datasetKind, 'sample-tmin', 'default')),
      { timeoutMs: 240_000, intervalMs: 250 },
    );
    const connection = await OpenEO.connect(running.url);
    const builder = await connection.buildProcess('refused');
    const temperature = builder.process('load_collection', {
      id: 'sample-tmin',
      spatial_extent: BBOX,
      temporal_extent: ['2022-01-01', '2022-12-31'],
    });
    const spi = builder.process('spi', { data: temperature, scale: 3 });
    const saved = builder.process('save_result', { data: spi, format: 'JSON' });
    await expect(connection.computeResult(saved)).rejects.toMatchObject({
      response: { status: 400 },
      code: 'ProcessParameterInvalid',
      message: expect.stringMatching(/variable 'tasmin' has units 'degC'; expected precipitation in 'mm day-1'/),
    });
  }, 250_000);
});
