/**
 * Exports end to end in embedded mode: `POST /exports/{id}` with and without Idempotency-Key, Delivery workers
 * sending chunks to the DHIS2-compatible test server through its faults, a killed worker resuming from its
 * checkpoint, asynchronous imports, dry runs, mapping and period rules, serialization per target and the changelog.
 * The source jobs are ProcessingJobs in status `finished` with their dhis2-json payload in place, as the worker
 * leaves them (test/interop/jobs.test.ts makes such payloads from real graphs; the last test here delivers one).
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { PAYLOAD_FILE, type DataValue } from '../../core/exports/payload.ts';
import { API_VERSION } from '../../core/resources/registry.ts';
import { deliveryKind, type Delivery } from '../../core/resources/delivery/schema.ts';
import { processingJobKind, type ProcessingJob } from '../../core/resources/processing-job/schema.ts';
import { jobRunPath } from '../../core/stores/layout.ts';
import { defaultRunOptions } from '../../core/runs/options.ts';
import { startDhis2Server, valueKey, type Dhis2Server } from '../support/dhis2-server.ts';
import { startEmbedded } from '../support/embedded.ts';
import { eventually } from '../support/eventually.ts';
import { workerPids } from '../support/processes.ts';
import { provenanceExtensionsValidator } from '../support/stac-extensions.ts';

const ORG_UNITS = Array.from({ length: 25 }, (_, i) => `OU${String(i).padStart(9, '0')}`);
const DAYS = Array.from({ length: 10 }, (_, i) => `202401${String(i + 1).padStart(2, '0')}`);

let dataDir: string;
let running: RunningEmbedded;
const operator = { runs: { ...defaultRunOptions, backoff: { retryBaseSeconds: 1, retryCapSeconds: 1 } } };
let server: Dhis2Server;

interface DeliveryJob {
  jobID: string;
  status: string;
  error: { type: string; message: string } | null;
  chunks: {
    index: number;
    values: number;
    strategy: string;
    outcome: string;
    tries: number;
    readBack?: { applied: number; missing: number };
  }[];
  report: {
    values: number;
    importCount: { imported: number; updated: number; ignored: number; deleted: number };
    conflicts: { object: string; values: number }[];
    unknownValues: number;
    droppedPeriods: string[];
    changelogEntries: number;
  } | null;
  events: { type: string; data: Record<string, unknown> }[];
  links: { href: string; rel: string }[];
}

/** A payload of one daily value per org unit and day: 250 values, `value(ou, day)` each. */
function payload(dataElement: string, value: (ou: number, day: number) => number, orgUnits = ORG_UNITS): DataValue[] {
  return orgUnits.flatMap((orgUnit, o) =>
    DAYS.map((period, d) => ({ dataElement, period, orgUnit, value: String(value(o, d)) })),
  );
}

let jobs = 0;
/** A ProcessingJob that finished with `values` as its dhis2-json result, as the worker leaves one. */
async function finishedJob(values: DataValue[] | undefined): Promise<string> {
  const name = `source-${++jobs}`;
  const attempt = `${name}-a1`;
  const path = jobRunPath('default', name, attempt);
  await mkdir(join(dataDir, 'store', path), { recursive: true });
  const files = values
    ? [{ name: PAYLOAD_FILE, mediaType: 'application/json', size: 1 }]
    : [{ name: 'result.json', mediaType: 'application/json', size: 2 }];
  if (values) await writeFile(join(dataDir, 'store', path, PAYLOAD_FILE), JSON.stringify({ dataValues: values }));
  await running.cluster.create<ProcessingJob>(processingJobKind, {
    apiVersion: API_VERSION,
    kind: processingJobKind.kind,
    metadata: { name, namespace: 'default' },
    spec: { process: { process_graph: {} }, cancelRequested: false, maxAttempts: 1 },
  } as ProcessingJob);
  // The job controller records the job as created first; the finished status goes over that.
  await eventually(
    async () => (await running.cluster.get<ProcessingJob>(processingJobKind, name, 'default'))?.status?.phase,
  );
  await running.cluster.patchStatus<ProcessingJob>(
    processingJobKind,
    name,
    {
      type: 'merge',
      body: { status: { phase: 'finished', results: { path, files, extent: {} } } },
    },
    'default',
  );
  return name;
}

async function deliver(exportId: string, body: unknown, key?: string) {
  const response = await fetch(`${running.url}/exports/${exportId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key !== undefined && { 'idempotency-key': key }) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function ended(exportId: string, id: string, timeoutMs = 30_000): Promise<DeliveryJob> {
  return eventually(
    async () => {
      const record = (await (await fetch(`${running.url}/exports/${exportId}/jobs/${id}`)).json()) as DeliveryJob;
      return record.status === 'successful' || record.status === 'failed' ? record : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

async function delivered(exportId: string, jobId: string, options: { dryRun?: boolean; timeoutMs?: number } = {}) {
  const accepted = await deliver(exportId, { job_id: jobId, ...(options.dryRun && { dry_run: true }) });
  expect(accepted.status).toBe(202);
  return ended(exportId, accepted.body.delivery_job_id as string, options.timeoutMs);
}

interface ChangelogPage {
  pager: { total: number; pageCount: number };
  changeLogs: {
    type: string;
    orgUnit: string;
    period: string;
    previousValue: string | null;
    value: string | null;
    delivery: string;
  }[];
}
const changelog = async (exportId: string, query = '') =>
  (await (await fetch(`${running.url}/exports/${exportId}/changelog?pageSize=1000${query}`)).json()) as ChangelogPage;

function exportManifest(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: API_VERSION,
    kind: 'Export',
    metadata: { name, namespace: 'default' },
    spec: {
      ...spec,
      target: {
        type: 'dhis2-data-value-sets',
        url: server.url,
        credentialsSecret: 'dhis2',
        ...(spec.target as object),
      },
    },
  });
}

const atTarget = (dataElement: string) =>
  new Map([...server.values.values()].filter((v) => v.dataElement === dataElement).map((v) => [valueKey(v), v.value]));

const expectedAt = (values: DataValue[]) => new Map(values.map((v) => [valueKey(v), v.value]));

describe('exports (embedded, DHIS2-compatible test server)', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-exports-'));
    server = await startDhis2Server({
      auth: { user: 'admin', password: 'district' },
      slowMs: 1_500,
      programs: { PRevent0001: 'PSstage0001' },
    });
    const secret = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'dhis2', namespace: 'default' },
      stringData: { username: 'admin', password: 'district' },
    });
    running = await startEmbedded(dataDir, {
      examples: false,
      operator,
      manifests: {
        'secret.yaml': secret,
        'plain.yaml': exportManifest('plain', { target: { chunkSize: 100 } }),
        'faulty.yaml': exportManifest('faulty', { target: { chunkSize: 50, timeoutSeconds: 2 } }),
        'slow.yaml': exportManifest('slow', { target: { chunkSize: 50, timeoutSeconds: 10 } }),
        'serial.yaml': exportManifest('serial', { target: { chunkSize: 50, timeoutSeconds: 10 } }),
        'async.yaml': exportManifest('async', { target: { chunkSize: 100, async: true } }),
        'mirror.yaml': exportManifest('mirror', { target: { chunkSize: 100 }, rules: { missingValues: 'delete' } }),
        'monthly.yaml': exportManifest('monthly', {
          mapping: { periodType: 'monthly', dataElements: { precip: 'DEmonthly01' } },
          rules: { temporalAggregation: 'sum', incompletePeriods: 'reject' },
        }),
        'monthly-drop.yaml': exportManifest('monthly-drop', {
          mapping: { periodType: 'monthly', dataElements: { precip: 'DEmonthly02' } },
          rules: { temporalAggregation: 'sum', incompletePeriods: 'drop' },
        }),
        'unmapped.yaml': exportManifest('unmapped', { mapping: { dataElements: { other: 'DEother0001' } } }),
        'short.yaml': exportManifest('short', { target: { chunkSize: 100 }, deliveryHistoryLimit: 1 }),
        'program.yaml': JSON.stringify({
          apiVersion: API_VERSION,
          kind: 'Program',
          metadata: { name: 'malaria-events', namespace: 'default' },
          spec: { uid: 'PRevent0001', programStage: 'PSstage0001', enableChangeLog: true },
        }),
        'events.yaml': exportManifest('events', {
          target: { type: 'dhis2-tracker', program: 'malaria-events', chunkSize: 10 },
        }),
      },
    });
  }, 60_000);

  afterAll(async () => {
    await running?.stop();
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('delivers a payload in chunks, reports the import summary and records creates and updates', async () => {
    const first = payload('DEplain0001', (o, d) => o * 100 + d);
    const record = await delivered('plain', await finishedJob(first));
    expect(record.status).toBe('successful');
    expect(record.chunks.map((c) => [c.values, c.outcome])).toEqual([
      [100, 'imported'],
      [100, 'imported'],
      [50, 'imported'],
    ]);
    expect(record.report!.importCount).toEqual({ imported: 250, updated: 0, ignored: 0, deleted: 0 });
    expect(atTarget('DEplain0001')).toEqual(expectedAt(first));
    expect(record.events).toEqual([
      expect.objectContaining({
        type: 'export.delivered',
        data: expect.objectContaining({ imported: 250, export_id: 'plain' }),
      }),
    ]);
    const created = await changelog('plain', `&delivery=${record.jobID}`);
    expect(created.pager.total).toBe(250);
    expect(new Set(created.changeLogs.map((e) => e.type))).toEqual(new Set(['CREATE']));
    expect(record.report!.changelogEntries).toBe(250);

    // Ten values change; the rest arrive again as they are.
    const second = first.map((v, i) => (i % 25 === 0 ? { ...v, value: String(Number(v.value) + 0.5) } : v));
    const again = await delivered('plain', await finishedJob(second));
    expect(again.report!.importCount).toEqual({ imported: 0, updated: 10, ignored: 240, deleted: 0 });
    const updates = await changelog('plain', `&delivery=${again.jobID}`);
    expect(updates.changeLogs).toHaveLength(10);
    for (const entry of updates.changeLogs) {
      expect(entry.type).toBe('UPDATE');
      const before = first.find((v) => v.orgUnit === entry.orgUnit && v.period === entry.period)!;
      expect(entry.previousValue).toBe(before.value);
      expect(Number(entry.value)).toBe(Number(before.value) + 0.5);
    }
    expect(atTarget('DEplain0001')).toEqual(expectedAt(second));
    // Every value was written once by the first delivery and the ten once more by the second.
    for (const [key, writes] of server.writes)
      if (key.startsWith('DEplain0001'))
        expect(writes).toBe(
          second.find((v) => valueKey(v) === key)!.value === first.find((v) => valueKey(v) === key)!.value ? 1 : 2,
        );
    // The workers and the controller log the deliveries to the data exchange file of spec 3.
    const log = await readFile(join(dataDir, 'logs', 'stratus-data-exchange.log'), 'utf8');
    const ofRun = log
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { run?: string; msg: string })
      .filter((line) => line.run === `default/${again.jobID}`)
      .map((line) => line.msg);
    expect(ofRun).toEqual(expect.arrayContaining(['worker started', 'worker succeeded']));
    const paged = (await (
      await fetch(`${running.url}/exports/plain/changelog?page=2&pageSize=100`)
    ).json()) as ChangelogPage;
    expect(paged.pager).toEqual({ page: 2, pageSize: 100, pageCount: 3, total: 260 });
    expect(paged.changeLogs).toHaveLength(100);
  });

  it("serves an ended delivery's provenance: the payload's checksum, each chunk's digest and outcome, the import summary", async () => {
    const values = payload('DEprov00001', (o, d) => o + d / 10);
    const job = await finishedJob(values);
    const record = await delivered('plain', job);
    const link = record.links.find((l) => l.rel === 'provenance');
    expect(link?.href).toBe(`/exports/plain/jobs/${record.jobID}/provenance`);
    const response = await fetch(`${running.url}${link!.href}`);
    expect(response.status).toBe(200);
    const item = (await response.json()) as {
      assets: { payload: { href: string; 'file:checksum': string; 'file:size': number } };
      properties: { 'stratus:delivery': { chunks: Record<string, unknown>[]; import_summary: unknown } };
    };
    expect((await provenanceExtensionsValidator())(item)).toEqual([]);
    const bytes = await readFile(join(dataDir, 'store', jobRunPath('default', job, `${job}-a1`), PAYLOAD_FILE));
    expect(item.assets.payload).toMatchObject({
      href: `${running.url}/jobs/${job}/results/${PAYLOAD_FILE}`,
      'file:checksum': `1220${createHash('sha256').update(bytes).digest('hex')}`,
      'file:size': bytes.byteLength,
    });
    const { chunks, import_summary } = item.properties['stratus:delivery'];
    expect(chunks.map((c) => [c.index, c.values, c.outcome])).toEqual(
      record.chunks.map((c) => [c.index, c.values, c.outcome]),
    );
    // Each chunk's digest is that of the values it sent: the chunks hold different values, so different digests.
    const digests = chunks.map((c) => c.sha256 as string);
    expect(digests.every((d) => /^[0-9a-f]{64}$/.test(d))).toBe(true);
    expect(new Set(digests).size).toBe(chunks.length);
    expect(import_summary).toEqual(record.report);
    const unknown = await fetch(`${running.url}/exports/plain/jobs/no-such-delivery/provenance`);
    expect(unknown.status).toBe(404);
  });

  it('gives 50 concurrent requests with one Idempotency-Key one delivery, and another body with that key 409', async () => {
    const job = await finishedJob(payload('DEidem00001', (o, d) => o + d));
    const answers = await Promise.all(Array.from({ length: 50 }, () => deliver('plain', { job_id: job }, 'key-50')));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(202));
    expect(new Set(answers.map((a) => a.body.delivery_job_id)).size).toBe(1);
    expect(answers.filter((a) => a.body.reused === true)).toHaveLength(49);
    const id = answers[0]!.body.delivery_job_id as string;
    expect(answers[0]!.body).toMatchObject({
      export_id: 'plain',
      status_url: `/exports/plain/jobs/${id}`,
      report_url: `/exports/plain/jobs/${id}`,
      dry_run: false,
    });
    const conflict = await deliver('plain', { job_id: job, dry_run: true }, 'key-50');
    expect(conflict.status).toBe(409);
    expect(conflict.body.detail).toMatch(/Idempotency-Key key-50/);
    expect((await ended('plain', id)).status).toBe('successful');
    const deliveries = (await running.cluster.list<Delivery>(deliveryKind, { namespace: 'default' })).items;
    expect(deliveries.filter((d) => d.spec.jobId === job)).toHaveLength(1);
    // Values went once: the 49 repeats sent nothing.
    expect(server.imports.filter((r) => r.values.some((v) => v.dataElement === 'DEidem00001'))).toHaveLength(3);
    // Without a key each request is a delivery of its own.
    const [a, b] = await Promise.all([deliver('plain', { job_id: job }), deliver('plain', { job_id: job })]);
    expect(a.body.delivery_job_id).not.toBe(b.body.delivery_job_id);
    await ended('plain', a.body.delivery_job_id as string);
    await ended('plain', b.body.delivery_job_id as string);
  });

  it('refuses unknown exports and jobs, unfinished jobs, jobs without a payload and bad requests', async () => {
    const job = await finishedJob(payload('DEerrors001', () => 1));
    expect((await deliver('nowhere', { job_id: job })).status).toBe(404);
    expect((await deliver('plain', { job_id: 'no-such-job' })).status).toBe(404);
    // A job that was never run stays `created`.
    const unfinished = 'never-run';
    await running.cluster.create<ProcessingJob>(processingJobKind, {
      apiVersion: API_VERSION,
      kind: processingJobKind.kind,
      metadata: { name: unfinished, namespace: 'default' },
      spec: { process: { process_graph: {} }, cancelRequested: false, maxAttempts: 1 },
    } as ProcessingJob);
    const running409 = await deliver('plain', { job_id: unfinished });
    expect(running409).toMatchObject({
      status: 409,
      body: { detail: expect.stringMatching(/has not finished \(status created\)/) },
    });
    const noPayload = await deliver('plain', { job_id: await finishedJob(undefined) });
    expect(noPayload).toMatchObject({ status: 409, body: { detail: expect.stringMatching(/dhis2-json/) } });
    const strict = await deliver('plain', { job_id: job, extra: 1 });
    expect(strict.status).toBe(422);
    expect((await deliver('plain', { dry_run: true })).status).toBe(422);
    expect((await deliver('plain', { job_id: job }, 'x'.repeat(256))).status).toBe(422);
    expect((await fetch(`${running.url}/exports/plain/jobs/no-such-delivery`)).status).toBe(404);
    expect((await fetch(`${running.url}/exports/nowhere/changelog`)).status).toBe(404);
    expect((await fetch(`${running.url}/exports/..%2Fetc/changelog`)).status).toBe(422);
  });

  it('ends with each value at the target exactly once through 503s, timeouts and answers lost after the import', async () => {
    const values = payload('DEfaults001', (o, d) => o * 10 + d);
    // The first request of every chunk meets a fault: a 503 (nothing imported, sent again), a slow answer past
    // the client's timeout or a dropped connection after the import (unknown outcomes, read back, never re-sent).
    const faults = ['status-503', 'slow', 'drop-after-apply'] as const;
    let chunk = 0;
    const seen = new Set<string>();
    server.failEvery(() => undefined);
    const before = server.imports.length;
    server.failEvery((n) => {
      const request = server.imports[n - 1]!;
      const first = valueKey(request.values[0]!);
      if (!first.startsWith('DEfaults001') || seen.has(first)) return undefined;
      seen.add(first);
      return faults[chunk++ % faults.length];
    });
    // Slow answers come well after the client's 2 s, which a busy machine never takes for an answer.
    server.slowMs = 4_000;
    const record = await delivered('faulty', await finishedJob(values), { timeoutMs: 60_000 });
    server.failEvery(undefined);
    server.slowMs = 1_500;
    expect(record.status).toBe('successful');
    expect(record.chunks).toHaveLength(5);
    const outcomes = record.chunks.map((c) => c.outcome);
    expect(outcomes).toEqual(['imported', 'unknown', 'unknown', 'imported', 'unknown']);
    // The 503'd chunks took a second request; the unknown ones none.
    expect(record.chunks.map((c) => c.tries)).toEqual([2, 1, 1, 2, 1]);
    for (const c of record.chunks.filter((c) => c.outcome === 'unknown'))
      expect(c.readBack).toEqual({ applied: 50, missing: 0 });
    expect(record.report!.unknownValues).toBe(150);
    expect(atTarget('DEfaults001')).toEqual(expectedAt(values));
    for (const v of values) expect(server.writes.get(valueKey(v))).toBe(1);
    const applied = server.imports.slice(before).filter((r) => r.applied);
    expect(applied.flatMap((r) => r.values.map(valueKey)).sort()).toEqual(values.map(valueKey).sort());
    // The changelog has every value once, unknown chunks included (read back).
    const entries = await changelog('faulty', `&delivery=${record.jobID}`);
    expect(entries.pager.total).toBe(250);
  });

  it('reports values lost with a dropped request as missing and never sends them again', async () => {
    const values = payload('DElost00001', (o, d) => o + d * 2, ORG_UNITS.slice(0, 5));
    server.fail('drop-before-apply');
    const record = await delivered('faulty', await finishedJob(values));
    expect(record.status).toBe('failed');
    expect(record.error!.type).toBe('DeliveryIncomplete');
    expect(record.chunks[0]).toMatchObject({ outcome: 'unknown', tries: 1, readBack: { applied: 0, missing: 50 } });
    expect(server.imports.filter((r) => r.values.some((v) => v.dataElement === 'DElost00001'))).toHaveLength(1);
    expect(atTarget('DElost00001').size).toBe(0);
  });

  it('resumes a killed delivery worker from its checkpoint without sending anything twice', async () => {
    const values = payload('DEkilled001', (o, d) => o * 3 + d);
    server.failEvery((n) => (server.imports[n - 1]!.values[0]!.dataElement === 'DEkilled001' ? 'slow' : undefined));
    const accepted = await deliver('slow', { job_id: await finishedJob(values) });
    const id = accepted.body.delivery_job_id as string;
    await eventually(
      async () => {
        const d = await running.cluster.get<Delivery>(deliveryKind, id, 'default');
        return (d?.status?.chunks ?? []).filter((c) => c.outcome === 'imported').length >= 2 || undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    // The delivery's worker (its run context names the delivery: other runs' workers may run beside it).
    const worker = await eventually(async () => {
      const workers = await workerPids(process.pid, id);
      return workers.length === 1 ? workers[0] : undefined;
    });
    process.kill(worker, 'SIGKILL');
    const record = await ended('slow', id, 60_000);
    server.failEvery(undefined);
    expect(record.status).toBe('successful');
    const attempt = (await running.cluster.get<Delivery>(deliveryKind, id, 'default'))!.status!.attempt;
    expect(attempt).toBe(2);
    expect(record.chunks.every((c) => c.tries === 1)).toBe(true);
    expect(atTarget('DEkilled001')).toEqual(expectedAt(values));
    for (const v of values) expect(server.writes.get(valueKey(v))).toBe(1);
    const sent = server.imports.filter((r) => r.values[0]!.dataElement === 'DEkilled001');
    expect(sent).toHaveLength(5);
  }, 90_000);

  it('validates a dry run at the target without writing or recording, and follows asynchronous imports', async () => {
    const values = payload('DEasync0001', (o, d) => o - d);
    const job = await finishedJob(values);
    const dry = await delivered('async', job, { dryRun: true });
    expect(dry.status).toBe('successful');
    expect(dry.report!.importCount.imported).toBe(250);
    expect(dry.events).toEqual([]);
    expect(atTarget('DEasync0001').size).toBe(0);
    expect((await changelog('async')).pager.total).toBe(0);
    const real = await delivered('async', job);
    expect(real.status).toBe('successful');
    expect(real.report!.importCount.imported).toBe(250);
    expect(server.imports.filter((r) => r.values[0]!.dataElement === 'DEasync0001').every((r) => r.async)).toBe(true);
    expect(atTarget('DEasync0001')).toEqual(expectedAt(values));
    expect((await changelog('async')).pager.total).toBe(250);
  });

  it('deletes the values a payload no longer has (missingValues: delete) and records the deletions', async () => {
    const full = payload('DEmirror001', (o, d) => o + d + 1, ORG_UNITS.slice(0, 4));
    await delivered('mirror', await finishedJob(full));
    // The fourth org unit has no values for the first five days any more (nodata).
    const fewer = full.filter((v) => !(v.orgUnit === ORG_UNITS[3] && DAYS.indexOf(v.period) < 5));
    const record = await delivered('mirror', await finishedJob(fewer));
    expect(record.status).toBe('successful');
    expect(record.report!.importCount).toMatchObject({ deleted: 5, updated: 0 });
    expect(record.chunks.map((c) => c.strategy)).toEqual(['CREATE_AND_UPDATE', 'DELETE']);
    expect(atTarget('DEmirror001')).toEqual(expectedAt(fewer));
    const deletions = await changelog('mirror', '&type=DELETE');
    expect(deletions.changeLogs).toHaveLength(5);
    expect(
      deletions.changeLogs.every((e) => e.orgUnit === ORG_UNITS[3] && e.value === null && e.previousValue !== null),
    ).toBe(true);
  });

  it('aggregates daily values into monthly periods, rejecting or dropping incomplete ones', async () => {
    const january = Array.from({ length: 31 }, (_, d) => `202401${String(d + 1).padStart(2, '0')}`);
    const values = ORG_UNITS.slice(0, 3).flatMap((orgUnit, o) => [
      ...january.map((period, d) => ({ dataElement: 'precip', period, orgUnit, value: String(o + d / 10) })),
      // Only the first of February.
      { dataElement: 'precip', period: '20240201', orgUnit, value: '7' },
    ]);
    const job = await finishedJob(values);
    const rejected = await delivered('monthly', job);
    expect(rejected.status).toBe('failed');
    expect(rejected.error).toMatchObject({
      type: 'IncompletePeriods',
      message: expect.stringMatching(/1 of the 29 daily periods of 202402/),
    });
    expect(atTarget('DEmonthly01').size).toBe(0);
    const dropped = await delivered('monthly-drop', job);
    expect(dropped.status).toBe('successful');
    expect(dropped.report!.droppedPeriods).toEqual(['202402']);
    const sums = atTarget('DEmonthly02');
    expect(sums.size).toBe(3);
    ORG_UNITS.slice(0, 3).forEach((orgUnit, o) => {
      const expected = january.reduce((sum, _, d) => sum + o + d / 10, 0);
      expect(Number(sums.get(valueKey({ dataElement: 'DEmonthly02', period: '202401', orgUnit })))).toBeCloseTo(
        expected,
        6,
      );
    });
    const unmapped = await delivered('unmapped', job);
    expect(unmapped.error).toMatchObject({ type: 'MappingIncomplete', message: expect.stringMatching(/'precip'/) });
  });

  it('runs deliveries to one target one at a time, oldest first', async () => {
    server.failEvery((n) =>
      server.imports[n - 1]!.values[0]!.dataElement.startsWith('DEserial') ? 'slow' : undefined,
    );
    const jobA = await finishedJob(payload('DEserial0A1', () => 1, ORG_UNITS.slice(0, 10)));
    const jobB = await finishedJob(payload('DEserial0B1', () => 2, ORG_UNITS.slice(0, 10)));
    const a = await deliver('slow', { job_id: jobA });
    const b = await deliver('serial', { job_id: jobB });
    const [ra, rb] = await Promise.all([
      ended('slow', a.body.delivery_job_id as string, 60_000),
      ended('serial', b.body.delivery_job_id as string, 60_000),
    ]);
    server.failEvery(undefined);
    expect([ra.status, rb.status]).toEqual(['successful', 'successful']);
    const order = server.imports.map((r) => r.values[0]!.dataElement).filter((de) => de.startsWith('DEserial'));
    expect(order).toEqual([...Array(2).fill('DEserial0A1'), ...Array(2).fill('DEserial0B1')]);
    expect(rb.chunks).toHaveLength(2);
  }, 90_000);

  it("delivers events to an event program, one per org unit and period, recording changes while the program's switch is on", async () => {
    const orgUnits = ORG_UNITS.slice(0, 5);
    const values = (offset: number) =>
      orgUnits.flatMap((orgUnit, o) =>
        DAYS.slice(0, 3).flatMap((period, d) => [
          { dataElement: 'DEcases0001', period, orgUnit, value: String(o * 10 + d + offset) },
          { dataElement: 'DEtests0001', period, orgUnit, value: String(o + d) },
        ]),
      );
    const eventsAt = () =>
      new Map(
        [...server.events.values()]
          .filter((e) => e.program === 'PRevent0001')
          .flatMap((e) => e.dataValues.map((d) => [`${e.orgUnit}|${e.occurredAt}|${d.dataElement}`, d.value] as const)),
      );
    const expected = (list: DataValue[]) =>
      new Map(
        list.map((v) => [
          `${v.orgUnit}|${v.period.slice(0, 4)}-${v.period.slice(4, 6)}-${v.period.slice(6)}|${v.dataElement}`,
          v.value,
        ]),
      );
    // A dropped answer after the import: the chunk is unknown and read back from the events.
    server.fail('drop-after-apply');
    const first = await delivered('events', await finishedJob(values(0)));
    expect(first.status).toBe('successful');
    expect(first.chunks.map((c) => [c.values, c.outcome])).toEqual([
      [10, 'unknown'],
      [10, 'imported'],
      [10, 'imported'],
    ]);
    expect(first.chunks[0]!.readBack).toEqual({ applied: 10, missing: 0 });
    expect(first.report!.importCount).toMatchObject({ imported: 10, updated: 0 });
    const stored = [...server.events.values()].filter((e) => e.program === 'PRevent0001');
    expect(stored).toHaveLength(15);
    expect(stored.every((e) => e.programStage === 'PSstage0001' && e.dataValues.length === 2)).toBe(true);
    expect(eventsAt()).toEqual(expected(values(0)));
    const created = await changelog('events');
    expect(created.pager.total).toBe(30);
    expect(created.changeLogs.every((e) => e.type === 'CREATE')).toBe(true);

    const patch = (value: boolean) =>
      fetch(`${running.url}/api/programs/PRevent0001`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json-patch+json' },
        body: JSON.stringify([{ op: 'replace', path: '/enableChangeLog', value }]),
      });
    expect((await patch(false)).status).toBe(200);
    const quiet = await delivered('events', await finishedJob(values(1)));
    expect(quiet.report!.importCount).toMatchObject({ imported: 0, updated: 15 });
    expect(quiet.report!.changelogEntries).toBe(0);
    expect((await changelog('events')).pager.total).toBe(30);
    expect(eventsAt()).toEqual(expected(values(1)));

    expect((await patch(true)).status).toBe(200);
    const recorded = await delivered('events', await finishedJob(values(2)));
    const updates = await changelog('events', `&delivery=${recorded.jobID}`);
    // The cases changed, the tests did not: one UPDATE per event, from the value the quiet delivery left.
    expect(updates.pager.total).toBe(15);
    expect(
      updates.changeLogs.every((e) => e.type === 'UPDATE' && Number(e.value) === Number(e.previousValue) + 1),
    ).toBe(true);
    // Each event's data values were written once per change: never twice by one delivery.
    for (const [key, writes] of server.writes) if (key.includes('|DEtests0001')) expect(writes).toBe(1);
    for (const [key, writes] of server.writes) if (key.includes('|DEcases0001')) expect(writes).toBe(3);
  }, 60_000);

  it('keeps the newest ended deliveries of an export, deleting older ones with their checkpoints', async () => {
    const job = await finishedJob(payload('DEshort0001', (o, d) => o + d, ORG_UNITS.slice(0, 2)));
    const first = await deliver('short', { job_id: job }, 'short-1');
    const firstId = first.body.delivery_job_id as string;
    await ended('short', firstId);
    const checkpoint = join(dataDir, 'store', 'exports', 'default', 'short', 'deliveries', `${firstId}.json`);
    expect((await readFile(checkpoint, 'utf8')).length).toBeGreaterThan(0);
    const second = await deliver('short', { job_id: job }, 'short-2');
    await ended('short', second.body.delivery_job_id as string);
    // The second to end leaves room for one: the first goes, its checkpoint with it.
    await eventually(
      async () => ((await running.cluster.get(deliveryKind, firstId, 'default')) === undefined ? true : undefined),
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect((await fetch(`${running.url}/exports/short/jobs/${firstId}`)).status).toBe(404);
    await expect(readFile(checkpoint)).rejects.toMatchObject({ code: 'ENOENT' });
    // Its Idempotency-Key is free again; the second's still answers the kept delivery.
    const again = await deliver('short', { job_id: job }, 'short-1');
    expect(again.body.reused).toBe(false);
    expect((await deliver('short', { job_id: job }, 'short-2')).body.reused).toBe(true);
    await ended('short', again.body.delivery_job_id as string);
  }, 60_000);

  it('records no changelog entries while changelog.aggregate is off, and keeps those recorded', async () => {
    const before = (await changelog('plain')).pager.total;
    await running.stop();
    running = await startEmbedded(dataDir, { examples: false, operator, config: { 'changelog.aggregate': 'off' } });
    const values = payload('DEoff000001', (o, d) => o + d + 3, ORG_UNITS.slice(0, 2));
    const record = await delivered('plain', await finishedJob(values));
    expect(record.status).toBe('successful');
    expect(record.report!.importCount.imported).toBe(20);
    expect(record.report!.changelogEntries).toBe(0);
    expect((await changelog('plain')).pager.total).toBe(before);
    expect(atTarget('DEoff000001')).toEqual(expectedAt(values));
  }, 60_000);
});
