/**
 * `aggregate_to_chap_csv` end to end in embedded mode over `make run`'s sample weather and districts: run by
 * `@openeo/js-client` synchronously and as a batch job, and by a workflow trigger when the precipitation is
 * updated; each CSV read by Python pandas as CHAP reads its data: CHAP's header, no gaps, a row per location and
 * period.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenEO, type Connection } from '@openeo/js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { WORKFLOW_LABEL } from '../../core/processing/jobs/triggers.ts';
import { ingestionKind, ingestionSpecSchema, type Ingestion } from '../../core/resources/ingestion/schema.ts';
import { processingJobKind, type ProcessingJob } from '../../core/resources/processing-job/schema.ts';
import { workflowKind, type Workflow } from '../../core/resources/workflow/schema.ts';
import { finishedSampleWeather, startEmbedded } from '../support/embedded.ts';
import { eventually } from '../support/eventually.ts';
import { python } from '../support/python.ts';

let dataDir: string;
let running: RunningEmbedded;
let connection: Connection;
let districts: string[];

const ARGUMENTS = {
  datasets: ['sample-precipitation', 'sample-tmax'],
  features: 'sample-districts',
  period_type: 'monthly',
  temporal_extent: ['2023-01-01', '2024-01-01'],
};

/** What pandas reads of a CHAP CSV: its columns, rows, gaps, and each location's periods as pandas periods. */
const PANDAS_READ = `
import json, sys
import pandas as pd
df = pd.read_csv(sys.argv[1], dtype={'location': str})
periods = pd.PeriodIndex(df['time_period'], freq='M')
df['period'] = periods
spans = {
  loc: [str(g['period'].min()), str(g['period'].max()), int(len(g)), bool((g['period'].diff().dropna() == g['period'].iloc[:1].dt.freq).all())]
  for loc, g in df.groupby('location')
}
print(json.dumps({
  'columns': list(df.columns[:-1]),
  'rows': int(len(df)),
  'missing': int(df.drop(columns=['period']).isna().sum().sum()),
  'duplicates': int(df.duplicated(['time_period', 'location']).sum()),
  'locations': sorted(df['location'].unique().tolist()),
  'spans': spans,
  'ranges': {c: [float(df[c].min()), float(df[c].max())] for c in df.columns[2:-1]},
}))
`;

interface PandasView {
  columns: string[];
  rows: number;
  missing: number;
  duplicates: number;
  locations: string[];
  spans: Record<string, [string, string, number, boolean]>;
  ranges: Record<string, [number, number]>;
}

async function pandasView(csv: string, name: string): Promise<PandasView> {
  const file = join(dataDir, name);
  await writeFile(file, csv);
  return python<PandasView>(PANDAS_READ, [file]);
}

/** What CHAP's reading needs: its header, every location with every month from the first to the last once, no gap. */
function expectChapShaped(view: PandasView, columns: string[], periods: [string, string, number]) {
  expect(view.columns).toEqual(['time_period', 'location', ...columns]);
  expect(view.missing).toBe(0);
  expect(view.duplicates).toBe(0);
  expect(view.locations).toEqual(districts);
  expect(view.rows).toBe(districts.length * periods[2]);
  for (const location of districts) expect(view.spans[location]).toEqual([...periods, true]);
}

async function text(data: unknown): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of data as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stratus-chap-csv-'));
  running = await startEmbedded(dataDir, { sampleWeather: true });
  for (const run of await finishedSampleWeather(running, ['precipitation', 'tmax']))
    expect(run.status?.phase, run.metadata.name).toBe('successful');
  const features = await eventually(
    async () => {
      const response = await fetch(`${running.url}/features/sample-districts/data.geojson`);
      return response.status === 200 ? ((await response.json()) as { features: { id: string }[] }) : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  districts = features.features.map((f) => String(f.id)).sort();
  connection = await OpenEO.connect(running.url);
}, 300_000);

afterAll(async () => {
  await running?.stop();
  await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe('aggregate_to_chap_csv over the sample districts and weather', () => {
  let synchronous: string;

  it('answers POST /result (through @openeo/js-client) with a CSV that pandas reads as CHAP does', async () => {
    const builder = await connection.buildProcess('chap');
    const node = builder.process('aggregate_to_chap_csv', ARGUMENTS);
    const { data, type } = await connection.computeResult(node);
    expect(type).toMatch(/^text\/csv/);
    synchronous = await text(data);
    const view = await pandasView(synchronous, 'sync.csv');
    expectChapShaped(view, ['rainfall', 'max_temperature'], ['2023-01', '2023-12', 12]);
    // Monthly district totals of rain (mm) and means of daily maxima (degC) of a West African monsoon climate.
    expect(view.ranges.rainfall![0]).toBeGreaterThanOrEqual(0);
    expect(view.ranges.rainfall![1]).toBeGreaterThan(100);
    expect(view.ranges.max_temperature![0]).toBeGreaterThan(15);
    expect(view.ranges.max_temperature![1]).toBeLessThan(45);
  }, 120_000);

  it('saves the same CSV as a batch job', async () => {
    const builder = await connection.buildProcess('chap_job');
    const job = await connection.createJob(builder.process('aggregate_to_chap_csv', ARGUMENTS), 'CHAP CSV');
    await job.startJob();
    await eventually(
      async () => {
        const { status } = await job.describeJob();
        if (status === 'error')
          throw new Error(`job ${job.id} failed: ${await (await fetch(`${running.url}/jobs/${job.id}/logs`)).text()}`);
        return status === 'finished' || undefined;
      },
      { timeoutMs: 120_000, intervalMs: 300 },
    );
    const assets = await job.listResults();
    expect(assets.map((a) => a.href.split('/').pop())).toEqual(['result.chap.csv']);
    const batch = await (await fetch(assets[0]!.href)).text();
    expect(batch).toBe(synchronous);
  }, 150_000);

  it('runs from a workflow trigger when the precipitation is updated', async () => {
    const workflow: Workflow = {
      apiVersion: 'climate.stratus.dev/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'rain-chap', namespace: 'default' },
      spec: {
        id: 'rain_chap',
        parameters: [{ name: 'start', description: 'The first period of the dataset.', schema: { type: 'string' } }],
        processGraph: {
          chap: {
            process_id: 'aggregate_to_chap_csv',
            arguments: {
              datasets: ['sample-precipitation'],
              features: 'sample-districts',
              temporal_extent: [{ from_parameter: 'start' }, null],
            },
            result: true,
          },
        },
        triggers: [{ event: 'dataset.updated', dataset: 'sample-precipitation' }],
      },
    } as Workflow;
    await running.cluster.create(workflowKind, workflow);
    await running.cluster.create(ingestionKind, {
      apiVersion: 'climate.stratus.dev/v1alpha1',
      kind: 'Ingestion',
      metadata: { name: 'sample-precipitation-2025-01', namespace: 'default' },
      // The schema's defaults, as an apply gives them.
      spec: ingestionSpecSchema.parse({
        source: 'sample-precipitation',
        datasetId: 'sample-precipitation',
        start: '2025-01-01',
        end: '2025-01-31',
      }),
    } as Ingestion);
    const job = await eventually(
      async () => {
        const { items } = await running.cluster.list<ProcessingJob>(processingJobKind, { namespace: 'default' });
        const triggered = items.find(
          (j) => (j.metadata.labels as Record<string, string> | undefined)?.[WORKFLOW_LABEL] === 'rain-chap',
        );
        if (triggered?.status?.phase === 'error') throw new Error(JSON.stringify(triggered.status));
        return triggered?.status?.phase === 'finished' ? triggered : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 300 },
    );
    const csv = await (await fetch(`${running.url}/jobs/${job.metadata.name}/results/result.chap.csv`)).text();
    // The version's first period (2022-01-01) on, to the month the update added.
    expectChapShaped(await pandasView(csv, 'trigger.csv'), ['rainfall'], ['2022-01', '2025-01', 37]);
  }, 240_000);
});
