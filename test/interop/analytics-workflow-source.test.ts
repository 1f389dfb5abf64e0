/**
 * An AnalyticsTable whose source is a Workflow with its parameters, end to end in embedded mode: a linear index of
 * the sample dataset (`factor` × value + `offset`) aggregated per district equals the example dataset table's
 * statistics transformed by hand, and so does one whose `load_collection` id is a parameter of the workflow; a new version of the dataset and a changed Workflow rebuild it whole; a
 * workflow whose result has no time dimension fails the build with a message naming it; the example workflow
 * table `make run` applies is built.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import {
  analyticsTableKind,
  type AnalyticsTable,
  type AnalyticsTableVersion,
} from '../../core/resources/analytics-table/schema.ts';
import { datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { workflowKind, type Workflow } from '../../core/resources/workflow/schema.ts';
import { eventually } from '../support/eventually.ts';
import { ingestSample, startEmbedded, untilExamplesServed } from '../support/embedded.ts';

const DATASET_TABLE = 'sample-districts-monthly';
const TABLE = 'sample-scaled';
const FACTOR = 2;
const OFFSET = 1;
/** A table over a workflow whose `load_collection` id is its `collection` parameter. */
const COLLECTION_TABLE = 'sample-scaled-collection';

/**
 * A Workflow of `factor` × value + `offset` over a collection: `sample`, or (`byParameter`) the one its `collection`
 * parameter names.
 */
const scaledWorkflow = (name: string, byParameter: boolean) => `
apiVersion: climate.stratus.dev/v1alpha1
kind: Workflow
metadata: { name: ${name}, namespace: default }
spec:
  id: ${name.replaceAll('-', '_')}
  parameters:${byParameter ? '\n    - { name: collection, description: The dataset., schema: { type: string } }' : ''}
    - { name: factor, description: Multiplies each value., schema: { type: number } }
    - { name: offset, description: Is added to it., schema: { type: number } }
  processGraph:
    load:
      process_id: load_collection
      arguments: { id: ${byParameter ? '{ from_parameter: collection }' : 'sample'}, spatial_extent: null, temporal_extent: null }
    scaled:
      process_id: apply
      arguments:
        data: { from_node: load }
        process:
          process_graph:
            times: { process_id: multiply, arguments: { x: { from_parameter: x }, y: { from_parameter: factor } } }
            plus:
              process_id: add
              arguments: { x: { from_node: times }, y: { from_parameter: offset } }
              result: true
      result: true
`;

const MANIFESTS = {
  'scaled.yaml': `${scaledWorkflow('sample-scaled', false)}---
apiVersion: climate.stratus.dev/v1alpha1
kind: AnalyticsTable
metadata: { name: ${TABLE}, namespace: default }
spec:
  source: { workflow: { name: sample-scaled, parameters: { factor: ${FACTOR}, offset: ${OFFSET} } } }
  featureCollection: sample-districts
  periodTypes: [monthly, yearly]
  statistics: [mean, sum, min, max, count]
---${scaledWorkflow('scaled-collection', true)}---
apiVersion: climate.stratus.dev/v1alpha1
kind: AnalyticsTable
metadata: { name: ${COLLECTION_TABLE}, namespace: default }
spec:
  source: { workflow: { name: scaled-collection, parameters: { collection: sample, factor: ${FACTOR}, offset: ${OFFSET} } } }
  featureCollection: sample-districts
  periodTypes: [monthly, yearly]
  statistics: [mean, sum, min, max, count]
---
apiVersion: climate.stratus.dev/v1alpha1
kind: AnalyticsTable
metadata: { name: no-collection, namespace: default }
spec:
  source: { workflow: { name: scaled-collection, parameters: { factor: ${FACTOR}, offset: ${OFFSET} } } }
  featureCollection: sample-districts
---
apiVersion: climate.stratus.dev/v1alpha1
kind: AnalyticsTable
metadata: { name: sample-time-mean, namespace: default }
spec:
  source: { workflow: { name: sample-mean, parameters: { extent: { west: -180, south: -90, east: 180, north: 90 }, period: ['2024-01-01', '2025-01-01'] } } }
  featureCollection: sample-districts
`,
};

let dataDir: string;
let running: RunningEmbedded;

const tableOf = async (name: string) =>
  (await running.cluster.get<AnalyticsTable>(analyticsTableKind, name, 'default'))!;

/** The table once it serves a version matching `served`. */
function published(name: string, served: (v: AnalyticsTableVersion) => boolean): Promise<AnalyticsTableVersion> {
  return eventually(
    async () => {
      const version = (await tableOf(name)).status?.table;
      return version && served(version) ? version : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  );
}

/** The table's Ready condition once it is Failed. */
const failedReady = (name: string) =>
  eventually(
    async () => {
      const ready = (await tableOf(name)).status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.reason === 'Failed' ? ready : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  );

const currentVersion = async () =>
  (await running.cluster.get<Dataset>(datasetKind, 'sample', 'default'))!.status!.currentVersion!;

async function rowsOf(version: AnalyticsTableVersion) {
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  const file = join(dataDir, 'store', version.path);
  const reader = await db.runAndReadAll(`SELECT ou, periodType, pe, stat, value FROM read_parquet('${file}')`);
  const rows = reader.getRowObjectsJson() as {
    ou: string;
    periodType: string;
    pe: string;
    stat: string;
    value: number | null;
  }[];
  return new Map(rows.map((r) => [[r.ou, r.periodType, r.pe, r.stat].join('|'), r.value]));
}

/** Every value of the workflow table against the dataset table's, through `factor` × value + `offset`. */
async function expectScaled(workflowTable: AnalyticsTableVersion, datasetTable: AnalyticsTableVersion, offset: number) {
  const [scaled, plain] = [await rowsOf(workflowTable), await rowsOf(datasetTable)];
  expect(scaled.size).toBe(plain.size);
  for (const [key, value] of plain) {
    const [ou, type, pe, stat] = key.split('|');
    const count = plain.get([ou, type, pe, 'count'].join('|'))!;
    const want =
      value === null || stat === 'count'
        ? value
        : stat === 'sum'
          ? FACTOR * value + offset * count
          : FACTOR * value + offset;
    if (want === null) expect(scaled.get(key), key).toBeNull();
    // The workflow computes in the store's float32: equal to a few parts in 10^7 of the value.
    else expect(Math.abs(scaled.get(key)! - want), key).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(want)));
  }
}

describe('an analytics table over a workflow with its parameters (embedded)', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-analytics-workflow-'));
    running = await startEmbedded(dataDir, {
      manifests: MANIFESTS,
      operator: { runs: { backoff: { retryBaseSeconds: 1, retryCapSeconds: 1 } } },
    });
    await untilExamplesServed(running);
  }, 180_000);

  afterAll(async () => {
    await running?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 150_000);

  it("equals the dataset's table through the workflow's arithmetic, and records the versions it read", async () => {
    const version = await currentVersion();
    const scaled = await published(TABLE, (v) => v.sourceVersion.includes(`sample@${version}`));
    const plain = await published(DATASET_TABLE, (v) => v.sourceVersion === version);
    expect(scaled.sourceVersion).toBe(`sample-scaled@1,sample@${version}`);
    await expectScaled(scaled, plain, OFFSET);
    const ready = (await tableOf(TABLE)).status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'True', reason: 'Ready' });
  }, 150_000);

  it("loads the collection a parameter names, from the table's argument, and fails a table that gives none", async () => {
    const version = await currentVersion();
    const scaled = await published(COLLECTION_TABLE, (v) => v.sourceVersion.includes(`sample@${version}`));
    const plain = await published(DATASET_TABLE, (v) => v.sourceVersion === version);
    expect(scaled.sourceVersion).toBe(`scaled-collection@1,sample@${version}`);
    await expectScaled(scaled, plain, OFFSET);
    const failed = await failedReady('no-collection');
    expect(failed.message).toBe(
      'Workflow scaled-collection loads the collection named by its parameter collection, which has no value: give it in spec.source.workflow.parameters (or a default in the Workflow).',
    );
  }, 150_000);

  it('is rebuilt whole when the dataset serves a new version', async () => {
    const before = (await tableOf(TABLE)).status!.table!;
    const run = await ingestSample(running, '2025-01-01', '2025-01-01');
    expect(run.status?.phase).toBe('successful');
    const version = await currentVersion();
    const scaled = await published(TABLE, (v) => v.sourceVersion === `sample-scaled@1,sample@${version}`);
    const plain = await published(DATASET_TABLE, (v) => v.sourceVersion === version);
    expect(scaled.id).not.toBe(before.id);
    expect(scaled.periods?.end).toBe('2025-01-01');
    // Every month and year of 2024 and 2025 computed again: an index may depend on the whole history.
    expect(scaled.computedPeriods).toBe(12 + 1 + 1 + 1);
    await expectScaled(scaled, plain, OFFSET);
  }, 150_000);

  it('is rebuilt when the Workflow changes', async () => {
    const workflow = (await running.cluster.get<Workflow>(workflowKind, 'sample-scaled', 'default'))!;
    const graph = structuredClone(workflow.spec.processGraph) as {
      scaled: { arguments: { process: { process_graph: { plus: { arguments: { y: unknown } } } } } };
    };
    graph.scaled.arguments.process.process_graph.plus.arguments.y = 5;
    await running.cluster.update(workflowKind, { ...workflow, spec: { ...workflow.spec, processGraph: graph } });
    const scaled = await published(TABLE, (v) => v.sourceVersion.startsWith('sample-scaled@2,'));
    await expectScaled(scaled, (await tableOf(DATASET_TABLE)).status!.table!, 5);
  }, 150_000);

  it('fails a build whose workflow does not return a cube over time, naming what it returned', async () => {
    const failed = await failedReady('sample-time-mean');
    expect(failed.message).toContain(
      'Workflow sample-mean must return a raster cube of one band over time (t, bands, y, x); it returned a cube of dimensions',
    );
  }, 150_000);

  it('builds the example table make run applies over the sample_exceedance index', async () => {
    const version = await currentVersion();
    const example = await published('sample-exceedance-monthly', (v) => v.sourceVersion.endsWith(`sample@${version}`));
    const rows = await rowsOf(example);
    expect(rows.size).toBeGreaterThan(0);
    for (const [key, value] of rows) {
      if (value === null) continue;
      // A share of the district's area above the threshold on a day; the month's sum counts its days.
      if (key.endsWith('|mean')) expect(value).toBeGreaterThanOrEqual(0);
      if (key.endsWith('|mean')) expect(value).toBeLessThanOrEqual(1);
      if (key.endsWith('|sum')) expect(value).toBeLessThanOrEqual(31);
    }
    expect([...rows.values()].some((v) => v !== null && v > 0)).toBe(true);
  }, 150_000);
});
