import { describe, expect, it } from 'vitest';
import type { Checkpoint } from '../../../core/exports/checkpoint.ts';
import { deliverySpecSchema, type Delivery } from '../../../core/resources/delivery/schema.ts';
import { exportSpecSchema, type Export } from '../../../core/resources/export/schema.ts';
import type { ProcessingJob } from '../../../core/resources/processing-job/schema.ts';
import { programSpecSchema, type Program } from '../../../core/resources/program/schema.ts';
import type { JobState } from '../../jobs/runner.ts';
import type { Action } from '../../runtime/actions.ts';
import { CHECKPOINT_FINALIZER, planDelivery, type DeliveryObserved } from './plan.ts';

const now = new Date('2026-11-25T10:00:00Z');

function delivery(
  status: Delivery['status'] = undefined,
  spec: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {},
): Delivery {
  return {
    apiVersion: 'climate.stratus.dev/v1alpha1',
    kind: 'Delivery',
    metadata: { name: 'd1', namespace: 'ns', finalizers: [CHECKPOINT_FINALIZER], ...metadata },
    spec: deliverySpecSchema.parse({ exportId: 'e1', jobId: 'j1', contentHash: 'h', ...spec }),
    ...(status && { status }),
  } as Delivery;
}

const target = (extra: Record<string, unknown> = {}): Export =>
  ({
    metadata: { name: 'e1', namespace: 'ns' },
    spec: exportSpecSchema.parse({ target: { type: 'dhis2-data-value-sets', url: 'http://dhis2.test', ...extra } }),
  }) as Export;

const source = (phase = 'finished', files = ['result.dhis2.json']): ProcessingJob =>
  ({
    metadata: { name: 'j1', namespace: 'ns' },
    status: {
      phase,
      results: {
        path: 'jobs/ns/j1/j1-a1',
        files: files.map((name) => ({ name, mediaType: 'application/json' })),
        extent: {},
      },
    },
  }) as ProcessingJob;

function observed(extra: Partial<DeliveryObserved> = {}): DeliveryObserved {
  return {
    job: undefined,
    export: target({ credentialsSecret: 'dhis2' }),
    program: undefined,
    source: source(),
    checkpoint: undefined,
    ahead: [],
    storageRoot: '/store',
    changelog: true,
    ...extra,
  };
}

const statusOf = (actions: Action[]) =>
  (actions.find((a) => a.kind === 'patchStatus') as Extract<Action, { kind: 'patchStatus' }> | undefined)?.status as
    Delivery['status'] | undefined;
const startOf = (actions: Action[]) =>
  actions.find((a) => a.kind === 'startJob') as Extract<Action, { kind: 'startJob' }> | undefined;

const state = (phase: JobState['phase'], extra: Partial<JobState> = {}): JobState => ({
  name: 'd1-a1',
  phase,
  startedAt: now.toISOString(),
  ...extra,
});

describe('planDelivery', () => {
  it('starts the first attempt with the export and the payload, credentials from the Secret', () => {
    const { actions } = planDelivery(delivery(undefined, { requestedBy: 'alice' }), observed(), now);
    expect(statusOf(actions)).toMatchObject({ phase: 'running', attempt: 1, jobName: 'd1-a1' });
    const start = startOf(actions)!;
    expect(start.job).toMatchObject({
      name: 'd1-a1',
      task: 'delivery',
      input: {
        delivery: 'd1',
        exportId: 'e1',
        payload: 'jobs/ns/j1/j1-a1/result.dhis2.json',
        user: 'alice',
        changelog: true,
        dryRun: false,
      },
      env: [
        { name: 'STRATUS_CREDENTIALS_USERNAME', secretKeyRef: { name: 'dhis2', key: 'username' } },
        { name: 'STRATUS_CREDENTIALS_PASSWORD', secretKeyRef: { name: 'dhis2', key: 'password' } },
      ],
    });
    const token = startOf(planDelivery(delivery(), observed({ export: target({ tokenSecret: 'pat' }) }), now).actions)!;
    expect(token.job.env).toEqual([{ name: 'STRATUS_CREDENTIALS_TOKEN', secretKeyRef: { name: 'pat', key: 'token' } }]);
  });

  it("delivers to a tracker target's event program, recording as its switch says", () => {
    const program = (spec: Record<string, unknown>) =>
      ({
        metadata: { name: 'p1', namespace: 'ns' },
        spec: programSpecSchema.parse({ uid: 'PRprog00001', ...spec }),
      }) as Program;
    const tracker = target({ type: 'dhis2-tracker', program: 'p1' });
    const started = startOf(
      planDelivery(
        delivery(),
        observed({ export: tracker, program: program({ programStage: 'PSstage0001' }), changelog: true }),
        now,
      ).actions,
    )!;
    expect(started.job.input).toMatchObject({
      program: { uid: 'PRprog00001', programStage: 'PSstage0001' },
      changelog: false,
    });
    const on = program({ programStage: 'PSstage0001', enableChangeLog: true });
    const recording = startOf(
      planDelivery(delivery(), observed({ export: tracker, program: on, changelog: false }), now).actions,
    )!;
    expect(recording.job.input).toMatchObject({ changelog: true });
    for (const [found, why] of [
      [undefined, /program p1 of export e1 does not exist/],
      [program({}), /names no programStage/],
      [program({ programStage: 'PSstage0001', trackedEntityType: 'TEperson001' }), /event programs only/],
    ] as const) {
      const { actions } = planDelivery(delivery(), observed({ export: tracker, program: found }), now);
      expect(statusOf(actions)).toMatchObject({
        phase: 'failed',
        error: { type: 'InvalidRequest', message: expect.stringMatching(why) },
      });
    }
  });

  it('waits while another delivery to the target runs', () => {
    const plan = planDelivery(delivery(), observed({ ahead: ['d0'] }), now);
    expect(startOf(plan.actions)).toBeUndefined();
    expect(statusOf(plan.actions)).toMatchObject({ phase: 'accepted' });
    expect(statusOf(plan.actions)!.conditions).toContainEqual(
      expect.objectContaining({ reason: 'Waiting', message: 'Waiting for d0 to the same target.' }),
    );
    expect(plan.outcome.kind).toBe('requeueAfter');
    // Waiting again writes nothing new.
    const waiting = delivery(statusOf(plan.actions));
    expect(planDelivery(waiting, observed({ ahead: ['d0'] }), now).actions).toEqual([]);
  });

  it.each([
    [{ export: undefined }, 'InvalidRequest', /export e1 does not exist/],
    [{ source: undefined }, 'InvalidPayload', /job j1 does not exist/],
    [{ source: source('running') }, 'InvalidPayload', /has not finished \(running\)/],
    [{ source: source('finished', ['result.json']) }, 'InvalidPayload', /no dhis2-json result/],
  ] as const)('fails a delivery it cannot start (%#)', (extra, type, message) => {
    const { actions } = planDelivery(delivery(), observed(extra as Partial<DeliveryObserved>), now);
    expect(statusOf(actions)).toMatchObject({
      phase: 'failed',
      error: { type, message: expect.stringMatching(message) },
    });
    expect(startOf(actions)).toBeUndefined();
    expect(actions).toContainEqual(expect.objectContaining({ kind: 'event', reason: 'Failed' }));
  });

  it('mirrors the checkpoint and the progress while the attempt runs', () => {
    const checkpoint: Checkpoint = {
      delivery: 'd1',
      values: 3,
      droppedPeriods: [],
      changelogEntries: 2,
      chunks: [
        {
          index: 0,
          strategy: 'CREATE_AND_UPDATE',
          values: [{ dataElement: 'a', period: '2024', orgUnit: 'o', value: '1' }],
          outcome: 'imported',
          tries: 1,
          importCount: { imported: 1, updated: 0, ignored: 0, deleted: 0 },
        },
        {
          index: 1,
          strategy: 'CREATE_AND_UPDATE',
          values: [{ dataElement: 'a', period: '2025', orgUnit: 'o', value: '1' }],
          outcome: 'unknown',
          tries: 1,
          message: 'sent, no answer',
        },
      ],
    };
    const running = delivery({ phase: 'running', attempt: 1, jobName: 'd1-a1' });
    const { actions } = planDelivery(
      running,
      observed({ job: state('running', { progress: { done: 1, total: 2 } }), checkpoint }),
      now,
    );
    const status = statusOf(actions)!;
    expect(status.progress).toEqual({ done: 1, total: 2, percent: 50 });
    expect(status.chunks).toEqual([
      {
        index: 0,
        values: 1,
        strategy: 'CREATE_AND_UPDATE',
        outcome: 'imported',
        tries: 1,
        importCount: { imported: 1, updated: 0, ignored: 0, deleted: 0 },
      },
      { index: 1, values: 1, strategy: 'CREATE_AND_UPDATE', outcome: 'unknown', tries: 1, message: 'sent, no answer' },
    ]);
    expect(status.report).toMatchObject({
      values: 3,
      unknownValues: 1,
      changelogEntries: 2,
      importCount: { imported: 1 },
    });
  });

  it('retries a failed worker after the backoff with the next attempt, then gives up', () => {
    const running = delivery({ phase: 'running', attempt: 1, jobName: 'd1-a1' });
    const crashed = state('failed', { error: { type: 'WorkerCrashed', message: 'killed' } });
    const retry = planDelivery(
      running,
      observed({ job: crashed, backoff: { retryBaseSeconds: 5, retryCapSeconds: 5 } }),
      now,
    );
    expect(statusOf(retry.actions)).toMatchObject({
      phase: 'retrying',
      attempt: 2,
      jobName: 'd1-a2',
      retryAfter: '2026-11-25T10:00:05.000Z',
      error: { type: 'WorkerCrashed' },
    });
    expect(retry.outcome).toEqual({ kind: 'requeueAfter', ms: 5_000, reason: 'retry backoff' });
    const retrying = delivery(statusOf(retry.actions));
    expect(planDelivery(retrying, observed(), new Date(now.getTime() + 1_000)).outcome.kind).toBe('requeueAfter');
    const resumed = planDelivery(retrying, observed(), new Date(now.getTime() + 6_000));
    expect(startOf(resumed.actions)!.job.name).toBe('d1-a2');
    const last = delivery({ phase: 'running', attempt: 3, jobName: 'd1-a3' });
    expect(statusOf(planDelivery(last, observed({ job: crashed }), now).actions)).toMatchObject({
      phase: 'failed',
      error: { type: 'WorkerCrashed' },
    });
  });

  it('ends with the worker result: an export.delivered event when the target changed', () => {
    const running = delivery({ phase: 'running', attempt: 1, jobName: 'd1-a1' });
    const checkpoint: Checkpoint = {
      delivery: 'd1',
      values: 1,
      droppedPeriods: [],
      changelogEntries: 1,
      chunks: [
        {
          index: 0,
          strategy: 'CREATE_AND_UPDATE',
          values: [],
          outcome: 'imported',
          tries: 1,
          importCount: { imported: 1, updated: 0, ignored: 0, deleted: 0 },
        },
      ],
    };
    const ok = planDelivery(
      running,
      observed({ job: state('succeeded', { result: { outcome: 'successful' } }), checkpoint }),
      now,
    );
    expect(statusOf(ok.actions)).toMatchObject({
      phase: 'successful',
      events: [
        { type: 'export.delivered', source: '/exports/e1', eventID: 'd1:1', data: { imported: 1, job_id: 'j1' } },
      ],
    });
    expect(ok.actions).toContainEqual(expect.objectContaining({ kind: 'event', reason: 'Delivered' }));
    const dry = delivery({ phase: 'running', attempt: 1, jobName: 'd1-a1' }, { dryRun: true });
    const dryEnd = planDelivery(
      dry,
      observed({ job: state('succeeded', { result: { outcome: 'successful' } }), checkpoint }),
      now,
    );
    expect(statusOf(dryEnd.actions)!.events).toBeUndefined();
    const refused = planDelivery(
      running,
      observed({
        job: state('succeeded', { result: { outcome: 'failed', error: { type: 'IncompletePeriods', message: 'x' } } }),
      }),
      now,
    );
    expect(statusOf(refused.actions)).toMatchObject({ phase: 'failed', error: { type: 'IncompletePeriods' } });
    const garbled = planDelivery(running, observed({ job: state('succeeded', { result: 42 }) }), now);
    expect(statusOf(garbled.actions)).toMatchObject({ phase: 'failed', error: { type: 'WorkerError' } });
  });

  it('leaves an ended delivery alone', () => {
    expect(planDelivery(delivery({ phase: 'successful' }), observed(), now).actions).toEqual([]);
  });

  it('holds a delivery with a finalizer until a worker removed its checkpoint', () => {
    const fresh = planDelivery(delivery(undefined, {}, { finalizers: [] }), observed(), now);
    expect(fresh.actions[0]).toEqual({ kind: 'addFinalizer', name: CHECKPOINT_FINALIZER });
    const deleting = (status: Delivery['status']) => delivery(status, {}, { deletionTimestamp: now.toISOString() });
    const running = deleting({ phase: 'running', attempt: 1, jobName: 'd1-a1' });
    expect(planDelivery(running, observed({ job: state('running') }), now).actions).toContainEqual({
      kind: 'cancelJob',
      name: 'd1-a1',
    });
    const ended = deleting({ phase: 'successful', attempt: 1, jobName: 'd1-a1' });
    const gc = startOf(planDelivery(ended, observed(), now).actions)!;
    expect(gc.job).toMatchObject({
      name: 'd1-gc',
      task: 'remove-delivery-files',
      input: { delivery: 'd1', exportId: 'e1', namespace: 'ns', storageRoot: '/store' },
    });
    const removed = planDelivery(ended, observed({ cleanup: state('succeeded', { name: 'd1-gc' }) }), now);
    expect(removed.actions).toEqual([{ kind: 'removeFinalizer', name: CHECKPOINT_FINALIZER }]);
    const left = planDelivery(ended, observed({ cleanup: state('failed', { name: 'd1-gc' }) }), now);
    expect(left.actions).toContainEqual(expect.objectContaining({ kind: 'event', reason: 'FilesLeft' }));
    expect(left.actions).toContainEqual({ kind: 'removeFinalizer', name: CHECKPOINT_FINALIZER });
  });

  it('deletes the ended deliveries of its export past the history limit', () => {
    const { actions } = planDelivery(delivery({ phase: 'failed' }), observed({ expired: ['d0', 'd00'] }), now);
    expect(actions).toEqual([
      { kind: 'delete', ref: expect.objectContaining({ kind: 'Delivery' }), name: 'd0', namespace: 'ns' },
      { kind: 'delete', ref: expect.objectContaining({ kind: 'Delivery' }), name: 'd00', namespace: 'ns' },
    ]);
  });
});
