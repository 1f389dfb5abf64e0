import { isDeepStrictEqual } from 'node:util';
import { PeriodError } from '../../../core/periods/index.ts';
import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import { currentVersionOf, datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import type { FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { datasetIdOf, isFinished } from '../../../core/resources/ingestion/run.ts';
import type { Ingestion, IngestionStatus } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/kind.ts';
import { isSafeName, RETAINED_VERSIONS } from '../../../core/stores/layout.ts';
import type { RunErrorCode } from '../../../core/runs/errors.ts';
import { runRange } from '../../../core/sync/range.ts';
import type { IngestionInput } from '../../worker/ingestion-input.ts';
import { CREDENTIALS_ENV, ingestionResultSchema, TOKEN_ENV } from '../../worker/ingestion-input.ts';
import type { JobSpec, JobState } from '../../jobs/runner.ts';
import type { Action, Plan } from '../../runtime/actions.ts';
import { readinessConditions, type Readiness } from '../../runtime/readiness.ts';
import { featureRefreshAttempt, featureRefreshSucceeded } from './feature-refresh.ts';
import { defaultSplitOptions, partsOf, type SplitOptions } from './split.ts';
import { syncStart } from './sync-range.ts';

export interface IngestionObserved {
  /** The DataSource the run fetches, if it exists. */
  source: DataSource | undefined;
  /** The Dataset the run writes, if it exists yet. */
  dataset: Dataset | undefined;
  /** The FeatureCollection a feature refresh writes, if it exists yet. */
  collection?: FeatureCollection | undefined;
  /** The worker attempt of `status.attempt`, if the runner knows it. */
  job: JobState | undefined;
  /** Unfinished runs on the same dataset that were created first: this run waits for them (one writer). */
  earlierWriters: string[];
  /**
   * For a sync run about to start an attempt: the first and last period of the committed store (read from its
   * files), or why it could not be read; undefined when the dataset has no committed version.
   */
  committed?: { start: string; end: string } | { error: string };
  /** Where stores live and the extent every dataset covers. */
  instance: { storageRoot: string; bbox: [number, number, number, number] };
}

export interface IngestionPlanOptions {
  /** Backoff of attempt n: min(cap, base * 2^(n-1)) seconds (DESIGN.md §4: 60 and 240). */
  retryBaseSeconds: number;
  retryCapSeconds: number;
  /** When attempts are split into parts; never when absent. */
  split?: SplitOptions;
}

export const defaultIngestionPlanOptions: IngestionPlanOptions = {
  retryBaseSeconds: 60,
  retryCapSeconds: 240,
  split: defaultSplitOptions,
};

export function jobNameFor(run: Ingestion, attempt: number): string {
  return `${run.metadata.name}-a${attempt}`;
}

export function retryDelaySeconds(failedAttempt: number, options: IngestionPlanOptions): number {
  return Math.min(options.retryCapSeconds, options.retryBaseSeconds * 2 ** (failedAttempt - 1));
}

/** A new Dataset made from its DataSource template, as a run that finds none creates it. */
export function datasetFromSource(
  id: string,
  namespace: string | undefined,
  source: DataSource,
  publish: boolean,
): Dataset {
  const {
    provider: _provider,
    sync: _sync,
    temporalDirection: _direction,
    display: _display,
    ...description
  } = source.spec;
  return {
    apiVersion: API_VERSION,
    kind: datasetKind.kind,
    metadata: { name: id, namespace, labels: { 'climate.stratus.dev/source': source.metadata.name } },
    spec: { ...description, source: source.metadata.name, format: 'zarr', zarrVersion: 2, publish },
  } as Dataset;
}

/**
 * Secret-backed variables of a job: basic credentials from `credentialsSecret`, a token from `tokenSecret`, both
 * parameters of the provider the attempt uses.
 */
function credentialsEnv(parameters: Record<string, unknown>) {
  const { credentialsSecret, tokenSecret } = parameters;
  const env = [
    ...(typeof credentialsSecret === 'string'
      ? Object.entries(CREDENTIALS_ENV).map(([key, name]) => ({ name, secretKeyRef: { name: credentialsSecret, key } }))
      : []),
    ...(typeof tokenSecret === 'string'
      ? [{ name: TOKEN_ENV, secretKeyRef: { name: tokenSecret, key: 'token' } }]
      : []),
  ];
  return env.length > 0 ? env : undefined;
}

function workerInput(
  run: Ingestion,
  attempt: number,
  observed: IngestionObserved,
  range: { start: string; end: string },
  base: string | undefined,
): IngestionInput {
  const source = observed.source!;
  const id = datasetIdOf(run);
  const spec = observed.dataset?.spec;
  const baseSnapshot = currentVersionOf(observed.dataset)?.snapshot;
  return {
    run: run.metadata.name,
    attempt,
    datasetId: id,
    storageRoot: observed.instance.storageRoot,
    bbox: observed.instance.bbox,
    provider: { name: source.spec.provider.name, parameters: source.spec.provider.parameters ?? {} },
    dataset: {
      name: spec?.datasetName ?? source.spec.datasetName,
      variable: spec?.variable ?? source.spec.variable ?? 'value',
      units: spec?.units ?? source.spec.units,
      periodType: spec?.periodType ?? source.spec.periodType,
      license: spec?.license ?? source.spec.license,
      source: spec?.sourceName ?? source.spec.sourceName,
      sourceUrl: spec?.sourceUrl ?? source.spec.sourceUrl,
      format: spec?.format ?? 'zarr',
      zarrVersion: spec?.zarrVersion ?? 2,
    },
    start: range.start,
    end: range.end,
    overwrite: run.spec.overwrite,
    display: {
      colormap: source.spec.display?.colormap,
      range: source.spec.display?.range as [number, number] | undefined,
      nodata: source.spec.display?.nodata,
    },
    keepThumbnail: observed.dataset?.status?.thumbnail,
    keepVersions: (observed.dataset?.status?.versions ?? []).map((v) => v.id),
    ...(base && { base }),
    ...(base && baseSnapshot && { baseSnapshot }),
  };
}

/** The lifecycle of one ingestion or sync run: start, follow, retry with backoff, cancel, finish. */
export function planIngestion(
  run: Ingestion,
  observed: IngestionObserved,
  now: Date,
  options: IngestionPlanOptions = defaultIngestionPlanOptions,
): Plan {
  const status: IngestionStatus = run.status ?? {};
  const generation = run.metadata.generation as number | undefined;
  const attempt = status.attempt ?? 1;
  const jobName = jobNameFor(run, attempt);
  const at = now.toISOString();
  const write = (next: IngestionStatus, readiness: Readiness) => ({
    kind: 'patchStatus' as const,
    status: { ...next, conditions: readinessConditions(status.conditions, readiness, generation, now) },
  });

  if (isFinished(run)) return { actions: [], outcome: { kind: 'done', reason: `run ${status.phase}` } };

  const { job } = observed;
  if (run.spec.cancelRequested) {
    if (job?.phase === 'running') {
      return {
        actions: [{ kind: 'cancelJob', name: jobName }],
        outcome: { kind: 'done', reason: 'cancelling the running attempt' },
      };
    }
    return {
      actions: [
        write(
          { ...status, phase: 'cancelled', finishedAt: at, retryAfter: undefined },
          { state: 'stalled', reason: 'Cancelled', message: 'The run was cancelled; committed periods are kept.' },
        ),
        { kind: 'event', type: 'Normal', reason: 'Cancelled', message: `Run ${run.metadata.name} cancelled.` },
      ],
      outcome: { kind: 'done', reason: 'cancelled' },
    };
  }

  if (!observed.source) {
    return {
      actions: [
        write(
          {
            ...status,
            phase: 'failed',
            finishedAt: at,
            error: { type: 'SourceNotFound', message: `DataSource ${run.spec.source} does not exist.` },
          },
          { state: 'stalled', reason: 'SourceNotFound', message: `DataSource ${run.spec.source} does not exist.` },
        ),
      ],
      outcome: { kind: 'done', reason: 'no such source' },
    };
  }

  const fail = (type: RunErrorCode, message: string) => ({
    actions: [
      write(
        { ...status, phase: 'failed', finishedAt: at, error: { type, message } },
        { state: 'stalled', reason: type, message },
      ),
      { kind: 'event' as const, type: 'Warning' as const, reason: type, message },
    ],
    outcome: { kind: 'done' as const, reason: type },
  });

  const waitForEarlierWriters = (id: string): Plan | undefined => {
    if (observed.earlierWriters.length === 0) return undefined;
    const message = `Waiting for ${observed.earlierWriters.join(', ')} to finish writing ${id}.`;
    return {
      actions: [
        write(
          { ...status, phase: status.phase ?? 'accepted' },
          { state: 'progressing', reason: 'WaitingForWriter', message },
        ),
      ],
      outcome: { kind: 'requeueAfter', ms: 5_000, reason: 'another run writes the same target' },
    };
  };
  /** The current version already holds what the run asks for: done, with no job and no event. */
  const succeedWithoutJob = (result: Record<string, unknown>, reason: string, message: string): Plan => ({
    actions: [write({ ...status, phase: 'successful', finishedAt: at, result }, { state: 'ready', reason, message })],
    outcome: { kind: 'done', reason: message },
  });
  const startAttempt = (
    ensure: Action[],
    input: { provider: { parameters: Record<string, unknown> } },
    parts?: JobSpec['parts'],
  ): Plan => ({
    actions: [
      ...ensure,
      write(
        {
          ...status,
          phase: status.phase === 'retrying' ? 'running' : 'accepted',
          attempt,
          jobName,
          retryAfter: undefined,
          events: status.events ?? [],
        },
        { state: 'progressing', reason: 'Started', message: `Attempt ${attempt} of ${run.spec.maxAttempts} started.` },
      ),
      {
        kind: 'startJob',
        job: {
          name: jobName,
          task: run.spec.mode,
          input,
          env: credentialsEnv(input.provider.parameters),
          ...(parts && { parts }),
        },
      },
    ],
    outcome: { kind: 'done', reason: 'attempt started' },
  });
  // The attempt's last report; a short attempt may end before a running status was ever written.
  const progress = job?.progress
    ? {
        ...job.progress,
        percent: job.progress.total > 0 ? Math.round((job.progress.done / job.progress.total) * 1000) / 10 : 0,
      }
    : status.progress;
  const succeed = (switchTarget: Action, result: Record<string, unknown>, event: Record<string, unknown>): Plan => ({
    actions: [
      switchTarget,
      write(
        {
          ...status,
          phase: 'successful',
          startedAt: status.startedAt ?? job?.startedAt,
          finishedAt: job?.finishedAt ?? at,
          progress,
          result,
          error: undefined,
          events: [...(status.events ?? []), event as NonNullable<IngestionStatus['events']>[number]],
        },
        { state: 'ready', reason: 'Succeeded', message: `The run succeeded on attempt ${attempt}.` },
      ),
      { kind: 'event', type: 'Normal', reason: 'Succeeded', message: `Run ${run.metadata.name} succeeded.` },
    ],
    outcome: { kind: 'done', reason: 'succeeded' },
  });

  if (!job) {
    if (status.phase === 'retrying' && status.retryAfter && Date.parse(status.retryAfter) > now.getTime()) {
      return {
        actions: [],
        outcome: {
          kind: 'requeueAfter',
          ms: Date.parse(status.retryAfter) - now.getTime(),
          reason: 'waiting to retry',
        },
      };
    }
    const datasetId = datasetIdOf(run);
    if (!isSafeName(datasetId)) return fail('InvalidRequest', `"${datasetId}" is not a valid dataset id.`);
    if (run.spec.mode === 'feature-refresh') {
      const attemptPlan = featureRefreshAttempt(run, attempt, observed.source, observed.collection, observed.instance);
      if ('error' in attemptPlan) return fail('InvalidRequest', attemptPlan.error);
      return (
        waitForEarlierWriters(`feature collection ${datasetId}`) ?? startAttempt(attemptPlan.ensure, attemptPlan.input)
      );
    }
    const periodType = observed.dataset?.spec.periodType ?? observed.source.spec.periodType;
    if (!periodType) return fail('InvalidRequest', `DataSource ${run.spec.source} declares no period type.`);
    let range: { start: string; end: string };
    let base: string | undefined;
    const sync = run.spec.mode === 'sync';
    if (sync) {
      // Decided only once no earlier writer can still change what the store committed.
      const waiting = waitForEarlierWriters(`dataset ${datasetId}`);
      if (waiting) return waiting;
      const decided = syncStart(run, observed, now);
      if (decided.kind === 'fail') return fail(decided.type, decided.message);
      if (decided.kind === 'upToDate')
        return succeedWithoutJob(
          { datasetId, reused: true, upToDate: true, syncDetail: decided.detail },
          'UpToDate',
          decided.detail.message,
        );
      ({ range, base } = decided);
    } else {
      try {
        range = runRange(observed.source, periodType, run.spec.start, run.spec.end, now);
      } catch (err) {
        if (err instanceof PeriodError) return fail('InvalidRequest', err.message);
        throw err;
      }
    }
    const scope = { start: range.start, end: range.end, bbox: observed.instance.bbox };
    const current = currentVersionOf(observed.dataset);
    if (!sync && current && !run.spec.overwrite && isDeepStrictEqual(current.requestScope, scope))
      return succeedWithoutJob(
        { datasetId, reused: true, version: current.id },
        'Reused',
        `Version ${current.id} already holds the requested periods.`,
      );
    const ensureDataset: Action[] = observed.dataset
      ? []
      : [
          {
            kind: 'apply',
            ref: datasetKind,
            object: datasetFromSource(datasetId, run.metadata.namespace, observed.source, run.spec.publish),
          },
        ];
    const waiting = waitForEarlierWriters(`dataset ${datasetId}`);
    if (waiting) return waiting;
    const input = workerInput(run, attempt, observed, range, base);
    const parts = partsOf(options.split, input, now);
    // The parts of a split attempt must agree on the version they write: they name it after this moment.
    return startAttempt(ensureDataset, parts ? { ...input, createdAt: at } : input, parts);
  }

  if (job.phase === 'running') {
    return {
      actions: [
        write(
          { ...status, phase: 'running', startedAt: status.startedAt ?? job.startedAt, progress },
          {
            state: 'progressing',
            reason: 'Running',
            message: `Attempt ${attempt} of ${run.spec.maxAttempts} running.`,
          },
        ),
      ],
      outcome: { kind: 'done', reason: 'attempt running' },
    };
  }

  if (job.phase === 'succeeded' && run.spec.mode === 'feature-refresh') {
    const done = featureRefreshSucceeded(
      run,
      observed.collection,
      job.result,
      at,
      (status.events ?? []).length + 1,
      observed.instance.bbox,
    );
    if ('error' in done) return fail('WorkerError', done.error);
    return succeed(done.switchStatus, done.result, done.event);
  }

  if (job.phase === 'succeeded') {
    const parsed = ingestionResultSchema.safeParse(job.result);
    if (!parsed.success) return fail('WorkerError', `the worker returned an invalid result: ${parsed.error.message}`);
    const { version } = parsed.data;
    const dataset = observed.dataset;
    const previous = currentVersionOf(dataset);
    const events = status.events ?? [];
    const event = {
      type: 'dataset.updated',
      source: `/datasets/${parsed.data.datasetId}`,
      eventID: `${run.metadata.name}:${events.length + 1}`,
      time: at,
      data: {
        dataset_id: parsed.data.datasetId,
        version: version.id,
        action: parsed.data.action ?? (previous ? 'rematerialize' : 'create'),
        previous_end: previous?.coverage.temporal.end ?? null,
        current_start: version.coverage.temporal.start,
        current_end: version.coverage.temporal.end,
      },
    };
    return succeed(
      // The switch: readers follow `currentVersion`, so this one status write moves them all to the new version.
      {
        kind: 'patchStatusOf',
        ref: datasetKind,
        name: parsed.data.datasetId,
        namespace: run.metadata.namespace,
        status: {
          currentVersion: version.id,
          versions: [...(dataset?.status?.versions ?? []), version].slice(-RETAINED_VERSIONS),
          extent: version.coverage,
          lastUpdated: version.createdAt,
          ...(parsed.data.thumbnail && { thumbnail: parsed.data.thumbnail }),
          ...(run.spec.publish && { publication: { status: 'published', publishedAt: at } }),
        },
      },
      { datasetId: parsed.data.datasetId, reused: false, version: version.id },
      event,
    );
  }

  if (job.phase === 'cancelled') {
    return {
      actions: [
        write(
          { ...status, phase: 'cancelled', finishedAt: job.finishedAt ?? at },
          { state: 'stalled', reason: 'Cancelled', message: 'The run was cancelled; committed periods are kept.' },
        ),
      ],
      outcome: { kind: 'done', reason: 'cancelled' },
    };
  }

  // The attempt failed.
  const error = job.error ?? { type: 'Unknown', message: 'the attempt failed' };
  if (attempt < run.spec.maxAttempts) {
    const delay = retryDelaySeconds(attempt, options);
    return {
      actions: [
        write(
          {
            ...status,
            phase: 'retrying',
            attempt: attempt + 1,
            retryAfter: new Date(now.getTime() + delay * 1000).toISOString(),
            error,
          },
          {
            state: 'progressing',
            reason: 'Retrying',
            message: `Attempt ${attempt} failed (${error.type}: ${error.message}); retrying in ${delay} s.`,
          },
        ),
        {
          kind: 'event',
          type: 'Warning',
          reason: 'AttemptFailed',
          message: `Attempt ${attempt} failed: ${error.message}`,
        },
      ],
      outcome: { kind: 'requeueAfter', ms: delay * 1000, reason: 'retry backoff' },
    };
  }
  return {
    actions: [
      write(
        { ...status, phase: 'failed', finishedAt: job.finishedAt ?? at, error },
        {
          state: 'stalled',
          reason: error.type,
          message: `The run failed after ${attempt} attempt(s): ${error.message}`,
        },
      ),
      {
        kind: 'event',
        type: 'Warning',
        reason: 'Failed',
        message: `Run ${run.metadata.name} failed: ${error.message}`,
      },
    ],
    outcome: { kind: 'done', reason: 'failed' },
  };
}
