import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openEmbeddedCluster } from '../../../core/cluster/embedded/index.ts';
import { isApiError } from '../../../core/cluster/errors.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import type { Ingestion } from '../../../core/resources/ingestion/schema.ts';
import type { JobState } from '../../jobs/runner.ts';
import {
  dataset,
  expectPlan,
  job,
  now,
  observe,
  run,
  statusOf,
  stepPlan,
  syncRun,
  version,
  type Row,
} from '../../../test/fixtures/ingestion-runs.ts';
import { applyPlan } from '../../runtime/applier.ts';
import type { Action } from '../../runtime/actions.ts';
import { finish } from './finish.ts';

/** A run of three days of 2024 finishing over a version of the whole year: `result` is what the worker returned. */
function overOneYear(
  name: string,
  spec: Partial<Ingestion['spec']>,
  result: Record<string, unknown>,
  data: Record<string, unknown>,
): Row {
  return {
    name,
    resource: run({ phase: 'running', attempt: 1 }, { start: '2024-01-01', end: '2024-01-03', ...spec }),
    observed: observe({
      dataset: dataset([version('v1', '2024-01-01', '2024-12-31')]),
      job: job('succeeded', { result: { datasetId: 'sample', ...result } }),
    }),
    want: {
      phase: 'successful',
      kinds: ['patchStatusOf', 'patchStatus', 'event'],
      reason: 'Succeeded',
      outcome: 'done',
      extra: { events: [{ data: { previous_end: '2024-12-31', ...data } }] },
    },
  };
}

const rows: Row[] = [
  {
    name: 'a succeeded attempt switches the dataset to the new version, then marks the run successful',
    resource: run({ phase: 'running', attempt: 1 }),
    observed: observe({
      dataset: dataset([version('v1', '2023-12-01', '2023-12-31')]),
      job: job('succeeded', {
        result: { datasetId: 'sample', version: version('v2', '2024-01-01', '2024-01-31') },
        finishedAt: '2026-11-22T12:00:00Z',
      }),
    }),
    want: {
      phase: 'successful',
      kinds: ['patchStatusOf', 'patchStatus', 'event'],
      ready: 'True',
      reason: 'Succeeded',
      outcome: 'done',
      extra: {
        result: { datasetId: 'sample', reused: false, version: 'v2' },
        events: [
          {
            type: 'dataset.updated',
            source: '/datasets/sample',
            eventID: 'run:1',
            data: {
              dataset_id: 'sample',
              version: 'v2',
              action: 'rematerialize',
              previous_end: '2023-12-31',
              current_start: '2024-01-01',
              current_end: '2024-01-31',
            },
          },
        ],
      },
    },
  },
  overOneYear(
    'a run that asked to replace the dataset says so in the dataset.updated event',
    { replace: true },
    { version: version('v2', '2024-01-01', '2024-01-03') },
    { action: 'replace', current_end: '2024-01-03' },
  ),
  overOneYear(
    "a version spliced into the previous one carries the worker's update action",
    { overwrite: true },
    { version: version('v2', '2024-01-01', '2024-12-31'), action: 'update' },
    { action: 'update', current_end: '2024-12-31' },
  ),
  {
    name: 'a succeeded attempt with a result the planner cannot read fails the run',
    resource: run({ phase: 'running', attempt: 1 }),
    observed: observe({ job: job('succeeded', { result: { periods: 31 } }) }),
    want: { phase: 'failed', kinds: ['patchStatus', 'event'], ready: 'False', reason: 'WorkerError', outcome: 'done' },
  },
  {
    name: 'a first version creates the dataset in the dataset.updated event',
    resource: run({ phase: 'running', attempt: 1 }),
    observed: observe({
      job: job('succeeded', { result: { datasetId: 'sample', version: version('v1', '2024-01-01', '2024-01-31') } }),
    }),
    want: {
      phase: 'successful',
      kinds: ['patchStatusOf', 'patchStatus', 'event'],
      reason: 'Succeeded',
      outcome: 'done',
      extra: { events: [{ data: { action: 'create', previous_end: null } }] },
    },
  },
  {
    name: 'an attempt that stopped on cancellation cancels the run, without an event',
    resource: run({ phase: 'running', attempt: 1 }),
    observed: observe({ job: job('cancelled', { finishedAt: '2026-11-22T11:59:30Z' }) }),
    want: {
      phase: 'cancelled',
      kinds: ['patchStatus'],
      ready: 'False',
      reason: 'Cancelled',
      outcome: 'done',
      extra: { finishedAt: '2026-11-22T11:59:30Z' },
    },
  },
];

describe('Ingestion planner: the finish step', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) =>
    expectPlan(stepPlan(finish, row.resource, row.observed), row.want),
  );

  it('keeps every version in the switch, newest last, the replaced one superseded now (retention drops them later)', () => {
    const versions = [version('v1', '2023-11-01', '2023-11-30'), version('v2', '2023-12-01', '2023-12-31')];
    const plan = stepPlan(
      finish,
      run({ phase: 'running', attempt: 1 }, { publish: true }),
      observe({
        dataset: dataset(versions),
        job: job('succeeded', { result: { datasetId: 'sample', version: version('v3', '2024-01-01', '2024-01-31') } }),
      }),
    )!;
    const switchAction = plan.actions[0];
    expect(switchAction).toMatchObject({ kind: 'patchStatusOf', name: 'sample' });
    if (switchAction?.kind !== 'patchStatusOf') return;
    expect(switchAction.status).toMatchObject({
      currentVersion: 'v3',
      extent: { temporal: { start: '2024-01-01', end: '2024-01-31' } },
      publication: { status: 'published', publishedAt: now.toISOString() },
    });
    const switched = switchAction.status.versions as { id: string; supersededAt?: string }[];
    expect(switched.map((v) => [v.id, v.supersededAt])).toEqual([
      ['v1', undefined],
      ['v2', now.toISOString()],
      ['v3', undefined],
    ]);
  });

  describe('of sync runs', () => {
    const stored = dataset([version('v1', '2026-11-01', '2026-11-20')]);
    /** The plan once an attempt appended 2026-11-21 and 2026-11-22 to the stored periods. */
    const appended = (status: Ingestion['status'], extra: Partial<JobState> = {}) =>
      stepPlan(
        finish,
        syncRun(status),
        observe({
          dataset: stored,
          job: job('succeeded', {
            result: { datasetId: 'sample', version: version('v2', '2026-11-01', '2026-11-22'), action: 'append' },
            ...extra,
          }),
        }),
      )!;

    it('keeps the last progress of an attempt that ended before a running status was written', () => {
      const plan = appended(
        { phase: 'accepted', attempt: 1 },
        { progress: { done: 2, total: 2, message: 'stored 2026-11-22' } },
      );
      expect(statusOf(plan.actions)).toMatchObject({
        phase: 'successful',
        progress: { done: 2, total: 2, percent: 100 },
      });
    });

    it('records an append as the action of the dataset.updated event', () => {
      const plan = appended({ phase: 'running', attempt: 1 });
      expect(statusOf(plan.actions)!.events).toEqual([
        expect.objectContaining({
          data: expect.objectContaining({ action: 'append', previous_end: '2026-11-20', current_end: '2026-11-22' }),
        }),
      ]);
    });
  });

  describe('switching the dataset by compare-and-swap', () => {
    const succeeded = (id: string, start: string, end: string) =>
      job('succeeded', { result: { datasetId: 'sample', version: version(id, start, end) } });
    const switchOf = (actions: Action[]) => {
      const action = actions.find((a) => a.kind === 'patchStatusOf');
      if (action?.kind !== 'patchStatusOf') throw new Error('no switch in the plan');
      return action;
    };

    it('conditions the switch on the Dataset it read', () => {
      const read = dataset([version('v1', '2023-12-01', '2023-12-31')]);
      read.metadata.resourceVersion = '41';
      const plan = stepPlan(
        finish,
        run({ phase: 'running', attempt: 1 }),
        observe({ dataset: read, job: succeeded('v2', '2024-01-01', '2024-01-31') }),
      )!;
      expect(switchOf(plan.actions).resourceVersion).toBe('41');
    });

    it('a replan after the switch was written keeps the version once and names the one before it as previous', () => {
      const switched = dataset([version('v1', '2023-12-01', '2023-12-31'), version('v2', '2024-01-01', '2024-01-31')]);
      const plan = stepPlan(
        finish,
        run({ phase: 'running', attempt: 1 }),
        observe({ dataset: switched, job: succeeded('v2', '2024-01-01', '2024-01-31') }),
      )!;
      expect((switchOf(plan.actions).status.versions as { id: string }[]).map((v) => v.id)).toEqual(['v1', 'v2']);
      expect((statusOf(plan.actions)?.events as unknown[])[0]).toMatchObject({
        data: { version: 'v2', action: 'rematerialize', previous_end: '2023-12-31' },
      });
    });

    it('a plan made from a stale Dataset is refused with 409, and the replan from a fresh read keeps the version the other run wrote', async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'stratus-finish-'));
      const cluster = await openEmbeddedCluster({ dataDir });
      try {
        const v1 = version('v1', '2023-12-01', '2023-12-31');
        await cluster.create(datasetKind, {
          apiVersion: API_VERSION,
          kind: 'Dataset',
          metadata: { name: 'sample', namespace: 'default' },
          spec: dataset([]).spec,
        });
        await cluster.patchStatus(
          datasetKind,
          'sample',
          { type: 'merge', body: { status: { currentVersion: 'v1', versions: [v1] } } },
          'default',
        );
        const stale = (await cluster.get<Dataset>(datasetKind, 'sample', 'default'))!;
        // Another run switches the dataset to v2 after this one read it.
        const other = stepPlan(
          finish,
          run({ phase: 'running', attempt: 1 }),
          observe({ dataset: stale, job: succeeded('v2', '2024-01-01', '2024-01-31') }),
        )!;
        await cluster.patchStatus(
          datasetKind,
          'sample',
          { type: 'merge', body: { status: switchOf(other.actions).status } },
          'default',
        );

        const planFrom = (read: Dataset) =>
          stepPlan(
            finish,
            run({ phase: 'running', attempt: 1 }),
            observe({ dataset: read, job: succeeded('v3', '2024-02-01', '2024-02-29') }),
          )!;
        const onlySwitch = (plan: ReturnType<typeof planFrom>) => ({ ...plan, actions: [switchOf(plan.actions)] });
        const refused = await applyPlan(cluster, datasetKind, stale, onlySwitch(planFrom(stale)), now).catch(
          (err: unknown) => err,
        );
        expect(isApiError(refused, 'Conflict')).toBe(true);
        expect((await cluster.get<Dataset>(datasetKind, 'sample', 'default'))!.status?.currentVersion).toBe('v2');

        const fresh = (await cluster.get<Dataset>(datasetKind, 'sample', 'default'))!;
        await applyPlan(cluster, datasetKind, fresh, onlySwitch(planFrom(fresh)), now);
        const status = (await cluster.get<Dataset>(datasetKind, 'sample', 'default'))!.status!;
        expect(status.currentVersion).toBe('v3');
        // Without the precondition the stale plan would have written [v1, v3] and lost v2.
        expect(status.versions!.map((v) => v.id)).toEqual(['v1', 'v2', 'v3']);
      } finally {
        await cluster.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  });
});
