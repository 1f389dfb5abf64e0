import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runEmbedded, type RunningEmbedded } from '../../cmd/embedded.ts';
import type { OperatorOptions } from '../../operator/manager.ts';
import { currentVersionOf, datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { ingestionKind, type Ingestion } from '../../core/resources/ingestion/schema.ts';
import { freePort } from '../../scripts/free-port.ts';
import { eventually } from './eventually.ts';

const root = resolve(import.meta.dirname, '../..');

export interface EmbeddedTestOptions {
  /** Apply `manifests/examples/` too (the sample dataset and its 2024 ingestion, the sample districts). */
  examples?: boolean;
  /**
   * With `examples`, the three-year ingestions of the sample weather as well. Off unless asked: their workers
   * would slow the start of every other test on a 2-core machine, and no other test reads that data.
   */
  sampleWeather?: boolean;
  /** More manifests, by file name: written under the data directory and applied after the built-in ones. */
  manifests?: Record<string, string>;
  operator?: Pick<OperatorOptions, 'runs'>;
  /** Instance configuration keys set over `config/stratus.properties`. */
  config?: Record<string, string>;
  /**
   * `make run` signs users in (its authorization server is on), so every write needs the first admin. Tests of
   * the data features run the open instance of spec 1 instead unless they ask for this; sign-in on `make run`
   * itself is tested by test/auth and cmd/embedded.test.ts.
   */
  authentication?: boolean;
}

/**
 * A Dataset of the `sample` source stored as `format`, and the Ingestion `run` that fills it from `start` to `end`,
 * as one manifest file.
 */
export function sampleDatasetManifest(options: {
  name: string;
  title: string;
  format: 'zarr' | 'icechunk' | 'netcdf';
  run: string;
  start: string;
  end: string;
}): string {
  const { name, title, format, run, start, end } = options;
  return [
    'apiVersion: climate.stratus.dev/v1alpha1',
    'kind: Dataset',
    `metadata: {name: ${name}, namespace: default}`,
    `spec: {source: sample, datasetName: ${title}, variable: value, periodType: daily, format: ${format}}`,
    '---',
    'apiVersion: climate.stratus.dev/v1alpha1',
    'kind: Ingestion',
    `metadata: {name: ${run}, namespace: default}`,
    `spec: {source: sample, datasetId: ${name}, start: '${start}', end: '${end}'}`,
  ].join('\n');
}

const examplesDir = join(root, 'manifests/examples');
const SAMPLE_WEATHER_EXAMPLE = 'ingestion-sample-weather.yaml';

/** A copy of `manifests/examples/` under the data directory without the sample weather ingestions. */
async function examplesWithoutWeather(dataDir: string): Promise<string> {
  const copy = join(dataDir, 'test-examples');
  await mkdir(copy, { recursive: true });
  for (const file of await readdir(examplesDir))
    if (file !== SAMPLE_WEATHER_EXAMPLE) await copyFile(join(examplesDir, file), join(copy, file));
  return copy;
}

/**
 * Embedded mode as `make run` starts it, for an end-to-end test: the built-in data sources, the instance
 * configuration of `config/`, and the test's own manifests, on a free loopback port.
 */
export async function startEmbedded(
  dataDir: string,
  {
    examples = true,
    sampleWeather = false,
    manifests = {},
    operator,
    config: settings = {},
    authentication = false,
  }: EmbeddedTestOptions = {},
): Promise<RunningEmbedded> {
  const extra = join(dataDir, 'test-manifests');
  await mkdir(extra, { recursive: true });
  for (const [name, yaml] of Object.entries(manifests)) await writeFile(join(extra, name), yaml);
  // `make run`'s configuration, with the public URL of the port this run listens on (it is the issuer and the
  // base of every absolute link).
  const port = await freePort();
  const config = join(dataDir, 'stratus.properties');
  const text = await readFile(join(root, 'config/stratus.properties'), 'utf8');
  const lines = Object.entries({ ...(!authentication && { 'oauth2.server.enabled': 'off' }), ...settings }).map(
    ([key, value]) => `${key} = ${value}\n`,
  );
  await writeFile(
    config,
    text.replace(/^server\.base\.url = .*$/m, `server.base.url = http://127.0.0.1:${port}`) + `\n${lines.join('')}`,
  );
  return runEmbedded(
    {
      dataDir,
      manifests: [
        join(root, 'manifests/data-sources'),
        ...(examples ? [sampleWeather ? examplesDir : await examplesWithoutWeather(dataDir)] : []),
        extra,
      ],
      config,
      host: '127.0.0.1',
      port,
    },
    operator,
  );
}

/**
 * Until the example manifests' data is served: the `sample` dataset's ingested version with its thumbnail, and the
 * `sample-districts` GeoJSON. About ten seconds on a busy machine.
 */
export async function untilExamplesServed(running: RunningEmbedded): Promise<void> {
  await eventually(
    async () => {
      const dataset = await running.cluster.get<Dataset>(datasetKind, 'sample', 'default');
      return currentVersionOf(dataset) && dataset?.status?.thumbnail ? dataset : undefined;
    },
    { timeoutMs: 40_000, intervalMs: 200 },
  );
  await eventually(
    async () => (await fetch(`${running.url}/features/sample-districts/data.geojson`)).status === 200 || undefined,
    { timeoutMs: 20_000, intervalMs: 200 },
  );
}

/** The Ingestion `name` of the default namespace once it has finished, successfully or not. */
export function finishedIngestion(running: RunningEmbedded, name: string, timeoutMs = 120_000): Promise<Ingestion> {
  return eventually(
    async () => {
      const run = await running.cluster.get<Ingestion>(ingestionKind, name, 'default');
      return run?.status?.phase === 'successful' || run?.status?.phase === 'failed' ? run : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/** Ingests `start`..`end` (native dates) into the `sample` dataset through `POST /ingestions`; the finished run. */
export async function ingestSample(running: RunningEmbedded, start: string, end: string): Promise<Ingestion> {
  const res = await fetch(`${running.url}/ingestions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', prefer: 'respond-async' },
    body: JSON.stringify({ dataset_id: 'sample', start, end }),
  });
  if (res.status >= 300) throw new Error(`POST /ingestions answered ${res.status}: ${await res.text()}`);
  return finishedIngestion(running, ((await res.json()) as { ingestion_id: string }).ingestion_id);
}

/**
 * The sample weather's example ingestion runs (`sample-<source>-2022-2024`) of `sources`, once each has finished,
 * successfully or not. Three years of one source take a minute or two on a busy machine.
 */
export async function finishedSampleWeather(
  running: RunningEmbedded,
  sources: readonly string[],
): Promise<Ingestion[]> {
  const runs: Ingestion[] = [];
  for (const source of sources) runs.push(await finishedIngestion(running, `sample-${source}-2022-2024`, 150_000));
  return runs;
}
