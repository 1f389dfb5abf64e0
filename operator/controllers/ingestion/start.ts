import { PeriodError, type PeriodType } from '../../../core/periods/index.ts';
import { currentVersionOf } from '../../../core/resources/dataset/schema.ts';
import { datasetIdOf } from '../../../core/resources/ingestion/run.ts';
import { isSafeName } from '../../../core/stores/layout.ts';
import { runRange } from '../../../core/sync/range.ts';
import type { JobSpec } from '../../jobs/runner.ts';
import type { Action } from '../../runtime/actions.ts';
import { attemptJob, ensureDataset, workerInput } from './attempt.ts';
import { featureRefreshAttempt } from './feature-refresh.ts';
import { partsOf } from './split.ts';
import { syncStart } from './sync-range.ts';
import { unionFetch } from './union-range.ts';
import { failRun, type IngestionReason, type Step, type StepContext, type Transition } from './transition.ts';

/** How long a run waiting for an earlier writer looks again. */
const WRITER_RECHECK_MS = 5_000;

/**
 * The start step, while no attempt is known: wait out a retry's backoff, then decide what the attempt does and
 * start it, or finish the run without one (nothing to fetch), or fail it (nothing could be fetched). One writer
 * per target: a run waits while an earlier one is unfinished.
 */
export const start: Step = (context) => {
  if (context.observed.job) return undefined;
  const { status, now, run } = context;
  if (status.phase === 'retrying' && status.retryAfter && Date.parse(status.retryAfter) > now.getTime())
    return {
      outcome: { kind: 'requeueAfter', ms: Date.parse(status.retryAfter) - now.getTime(), reason: 'waiting to retry' },
    };
  const id = datasetIdOf(run);
  if (!isSafeName(id))
    return failRun(context, { type: 'InvalidRequest', message: `"${id}" is not a valid dataset id.` });
  return run.spec.mode === 'feature-refresh' ? startFeatureRefresh(context) : startRaster(context);
};

function startFeatureRefresh(context: StepContext): Transition {
  const { run, attempt, source, observed } = context;
  const planned = featureRefreshAttempt(run, attempt, source, observed.collection, observed.instance);
  if ('error' in planned) return failRun(context, { type: 'InvalidRequest', message: planned.error });
  return (
    waitForEarlierWriters(context, `feature collection ${datasetIdOf(run)}`) ??
    startAttempt(context, planned.ensure, planned.input)
  );
}

function startRaster(context: StepContext): Transition {
  const { run, source, observed, options, now, at, attempt } = context;
  const id = datasetIdOf(run);
  const periodType = observed.dataset?.spec.periodType ?? source.spec.periodType;
  if (!periodType)
    return failRun(context, {
      type: 'InvalidRequest',
      message: `DataSource ${run.spec.source} declares no period type.`,
    });
  const wanted = run.spec.mode === 'sync' ? syncFetch(context) : ingestionFetch(context, periodType);
  if ('outcome' in wanted) return wanted;
  const waiting = waitForEarlierWriters(context, `dataset ${id}`);
  if (waiting) return waiting;
  const input = workerInput(run, attempt, source, observed, wanted.range, wanted.base);
  const parts = partsOf(options.split, input, now);
  // The parts of a split attempt must agree on the version they write: they name it after this moment.
  return startAttempt(
    context,
    ensureDataset(run, source, observed.dataset),
    parts ? { ...input, createdAt: at } : input,
    parts,
  );
}

interface Fetch {
  range: { start: string; end: string };
  /** The committed version a sync continues. */
  base?: string;
}

/**
 * A sync fetches what the committed store lacks, decided only once no earlier writer can still change what the
 * store committed.
 */
function syncFetch(context: StepContext): Fetch | Transition {
  const waiting = waitForEarlierWriters(context, `dataset ${datasetIdOf(context.run)}`);
  if (waiting) return waiting;
  const decided = syncStart(context.run, context.observed, context.now);
  if (decided.kind === 'fail') return failRun(context, { type: decided.type, message: decided.message });
  if (decided.kind === 'upToDate')
    return succeedWithoutAttempt(
      context,
      { datasetId: datasetIdOf(context.run), reused: true, upToDate: true, syncDetail: decided.detail },
      'UpToDate',
      decided.detail.message,
    );
  return { range: decided.range, ...(decided.base !== undefined && { base: decided.base }) };
}

/**
 * An ingestion fetches the periods it asks for into a new version holding their union with the current version
 * (only the requested periods and any gap between them and the stored ones are fetched), unless the current
 * version already holds them. With `replace`, the new version holds the requested periods only.
 */
function ingestionFetch(context: StepContext, periodType: PeriodType): Fetch | Transition {
  const { run, source, observed, now } = context;
  let range: Fetch['range'];
  try {
    range = runRange(source, periodType, run.spec.start, run.spec.end, now);
  } catch (err) {
    if (err instanceof PeriodError) return failRun(context, { type: 'InvalidRequest', message: err.message });
    throw err;
  }
  const current = currentVersionOf(observed.dataset);
  if (!current || run.spec.replace) return { range: { start: range.start, end: range.end } };
  const decided = unionFetch(
    periodType,
    current,
    { start: range.start, end: range.end, bbox: observed.instance.bbox },
    run.spec.overwrite,
  );
  if (decided.kind === 'held')
    return succeedWithoutAttempt(
      context,
      { datasetId: datasetIdOf(run), reused: true, version: current.id },
      'Reused',
      `Version ${current.id} already holds the requested periods.`,
    );
  return { range: decided.range, base: current.path };
}

function waitForEarlierWriters(context: StepContext, target: string): Transition | undefined {
  const { earlierWriters } = context.observed;
  if (earlierWriters.length === 0) return undefined;
  return {
    status: {
      set: { phase: context.status.phase ?? 'accepted' },
      reason: 'WaitingForWriter',
      message: `Waiting for ${earlierWriters.join(', ')} to finish writing ${target}.`,
    },
    outcome: { kind: 'requeueAfter', ms: WRITER_RECHECK_MS, reason: 'another run writes the same target' },
  };
}

/** The current version already holds what the run asks for: done, with no attempt and no event. */
function succeedWithoutAttempt(
  context: StepContext,
  result: Record<string, unknown>,
  reason: Extract<IngestionReason, 'Reused' | 'UpToDate'>,
  message: string,
): Transition {
  return {
    status: { set: { phase: 'successful', finishedAt: context.at, result }, reason, message },
    outcome: { kind: 'done', reason: message },
  };
}

function startAttempt(
  context: StepContext,
  ensure: Action[],
  input: { provider: { parameters: Record<string, unknown> } },
  parts?: JobSpec['parts'],
): Transition {
  const { run, status, attempt, jobName } = context;
  return {
    before: ensure,
    status: {
      set: {
        phase: status.phase === 'retrying' ? 'running' : 'accepted',
        attempt,
        jobName,
        retryAfter: undefined,
        events: status.events ?? [],
      },
      reason: 'Started',
      message: `Attempt ${attempt} of ${run.spec.maxAttempts} started.`,
    },
    after: [{ kind: 'startJob', job: attemptJob(run, jobName, input, parts) }],
    outcome: { kind: 'done', reason: 'attempt started' },
  };
}
