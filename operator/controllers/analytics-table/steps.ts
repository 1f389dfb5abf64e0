/**
 * The steps of an AnalyticsTable's lifecycle (plan.ts). The table follows its sources: whenever the served version
 * of its dataset, its feature collection's file or its spec differ from what the served table was computed from,
 * a build is targeted at them; each build has up to `MAX_ATTEMPTS` attempts, named `<table>-a<n>` with `n`
 * counted across builds. A failed build leaves the previous table served, and the next change of a source
 * targets a new build.
 */
import type { analyticsTableConditions } from '../../../core/resources/analytics-table/conditions.ts';
import {
  analyticsTableSpecSchema,
  analyticsTableVersionSchema,
  type AnalyticsTable,
  type AnalyticsTableStatus,
} from '../../../core/resources/analytics-table/schema.ts';
import type { KubeObject, ObjectMeta } from '../../../core/cluster/objects.ts';
import { workflowSourceVersion } from '../../../core/analytics/workflow-source.ts';
import type { Workflow } from '../../../core/resources/workflow/schema.ts';
import { retryDelaySeconds, type RetryBackoff } from '../../../core/runs/backoff.ts';
import { analyticsTableDir } from '../../../core/stores/layout.ts';
import type { JobState } from '../../jobs/runner.ts';
import type { Outcome } from '../../runtime/actions.ts';
import { filesRemoval, reportedProgress, type RunStep, type Transition } from '../../runtime/run-lifecycle.ts';
import type { AnalyticsTableInput } from '../../worker/analytics-table-input.ts';

/** Holds a deleted table until its files are removed. */
export const TABLE_FINALIZER = 'climate.stratus.dev/analytics-table-files';
export const MAX_ATTEMPTS = 3;

export interface AnalyticsTableObserved {
  job: JobState | undefined;
  cleanup: JobState | undefined;
  /** The source Dataset, the FeatureCollection and the population Dataset, as far as they exist. */
  dataset: KubeObject | undefined;
  /** A workflow source: the Workflow, and the resources its call reads (core/analytics/workflow-source.ts). */
  workflow?: {
    object: Workflow | undefined;
    inputs: KubeObject[];
    /** Why the call cannot be built (a collection named by a parameter without a value). */
    problem?: string;
  };
  featureCollection: KubeObject | undefined;
  population: KubeObject | undefined;
  storageRoot: string;
  /** The versions of the table that unfinished deliveries read (read only when an attempt is about to start). */
  deliveredVersions: readonly string[];
  /** The retry backoff of a failed worker; the default when absent. */
  backoff?: RetryBackoff;
}

export interface TableContext {
  run: AnalyticsTable;
  observed: AnalyticsTableObserved;
  now: Date;
  status: AnalyticsTableStatus;
}

type Target = NonNullable<AnalyticsTableStatus['target']>;
type TableStep = RunStep<TableContext, typeof analyticsTableConditions, AnalyticsTableStatus>;
type TableTransition = Transition<typeof analyticsTableConditions, AnalyticsTableStatus>;

const done = (reason: string): Outcome => ({ kind: 'done', reason });
const attemptName = (table: AnalyticsTable, attempt: number) => `${table.metadata.name}-a${attempt}`;
export const cleanupName = (table: AnalyticsTable) => `${table.metadata.name}-gc`;
/** The spec generation, which the API server counts (metadata as the kinds' schemas type it is loose). */
const generationOf = (table: AnalyticsTable) => (table.metadata as ObjectMeta).generation ?? 0;
const served = (object: KubeObject | undefined, member: 'currentVersion' | 'path') =>
  (object?.status as Record<string, unknown> | undefined)?.[member] as string | undefined;

/** The version of the source now: the dataset's served version, or the workflow's with its datasets'. */
function sourceVersionOf({ run, observed }: TableContext): string | undefined {
  if (!run.spec.source.workflow) return served(observed.dataset, 'currentVersion');
  const workflow = observed.workflow?.object;
  return workflow && workflowSourceVersion(workflow, observed.workflow!.inputs);
}

/** What the table must be computed from now; undefined while a source has nothing served. */
export function desiredTarget(context: TableContext): Target | undefined {
  const { run, observed } = context;
  const sourceVersion = sourceVersionOf(context);
  const featureCollectionPath = served(observed.featureCollection, 'path');
  if (!sourceVersion || !featureCollectionPath) return undefined;
  if (run.spec.weighting === 'population' && !served(observed.population, 'currentVersion')) return undefined;
  return { sourceVersion, featureCollectionPath, generation: generationOf(run) };
}

const sameTarget = (a: Target | undefined, b: Target) =>
  a?.sourceVersion === b.sourceVersion &&
  a.featureCollectionPath === b.featureCollectionPath &&
  a.generation === b.generation;

export const deleted: TableStep = ({ run: table, observed, status }) => {
  const namespace = table.metadata.namespace ?? 'default';
  return filesRemoval({
    running: observed.job?.phase === 'running' ? status.jobName : undefined,
    cleanup: observed.cleanup,
    job: {
      name: cleanupName(table),
      task: 'remove-analytics-table',
      input: { table: table.metadata.name, storageRoot: observed.storageRoot },
    },
    finalizer: TABLE_FINALIZER,
    left: (why) =>
      `The files of table ${table.metadata.name} stay at ${analyticsTableDir('', table.metadata.name)} under the store (${namespace}): ${why}.`,
  });
};

/**
 * A table at rest plans nothing: its sources have nothing served yet, or the served table (or the failed build)
 * is for what the sources are now. Otherwise a build is targeted at them, once the attempt of an earlier one ended.
 */
export const finished: TableStep = (context) => {
  const { run: table, status, observed } = context;
  if (observed.job?.phase === 'running') return undefined;
  // A CRD cannot say "exactly one of dataset and workflow", so Kubernetes stores such a source; it stalls here.
  const source = analyticsTableSpecSchema.shape.source.safeParse(table.spec.source);
  if (!source.success) {
    const message = `spec.source ${source.error.issues.map((issue) => issue.message).join('; ')}.`;
    return { status: { set: {}, reason: 'Failed', message }, outcome: done('invalid source') };
  }
  const problem = observed.workflow?.problem;
  if (problem !== undefined)
    return { status: { set: {}, reason: 'Failed', message: problem }, outcome: done('unresolved workflow parameter') };
  const target = desiredTarget(context);
  if (!target) {
    const message = `Waiting for ${sourceName(table)} and feature collection ${table.spec.featureCollection} to serve data.`;
    return { status: { set: {}, reason: 'Waiting', message }, outcome: done('waiting for the sources') };
  }
  if (status.table && sameTarget(status.table, target)) return { outcome: done('table current') };
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  if (sameTarget(status.target, target))
    return ready?.reason === 'Failed' ? { outcome: done('build failed') } : undefined;
  const attempt = (status.attempt ?? 0) + 1;
  return {
    status: {
      set: {
        target,
        attempt,
        runFirstAttempt: attempt,
        jobName: attemptName(table, attempt),
        retryAfter: undefined,
        progress: undefined,
        startedAt: undefined,
        finishedAt: undefined,
        error: undefined,
      },
      reason: 'Building',
      message: `Building from version ${target.sourceVersion} of ${sourceName(table)}.`,
    },
    outcome: done('build targeted'),
  };
};

const sourceName = ({ spec: { source } }: AnalyticsTable) =>
  source.workflow ? `workflow ${source.workflow.name} (the datasets it loads)` : `dataset ${source.dataset}`;

export const start: TableStep = ({ run: table, status, observed }) => {
  if (observed.job) return undefined;
  const generation = generationOf(table);
  const previous = status.table?.generation === generation ? status.table : undefined;
  const input: AnalyticsTableInput = {
    table: table.metadata.name,
    namespace: table.metadata.namespace ?? 'default',
    attempt: status.attempt!,
    generation,
    storageRoot: observed.storageRoot,
    spec: table.spec,
    // The Workflow whole (its generation is part of the source version), then what its call reads but it.
    resources: [
      observed.dataset,
      observed.featureCollection,
      observed.population,
      observed.workflow?.object,
      ...(observed.workflow?.inputs ?? []).filter(
        (o) => o.metadata.name !== observed.workflow?.object?.metadata.name || o.kind !== 'Workflow',
      ),
    ].filter((o): o is KubeObject => o !== undefined) as AnalyticsTableInput['resources'],
    ...(previous && { previous }),
    // The new version and the newest before it make the history limit; a version a delivery reads stays too.
    keep: [
      ...new Set([
        ...(status.versions ?? []).slice(0, table.spec.tableHistoryLimit - 1).map((v) => v.id),
        ...observed.deliveredVersions,
      ]),
    ],
  };
  return {
    after: [{ kind: 'startJob', job: { name: status.jobName!, task: 'analytics-table', input } }],
    outcome: done('attempt started'),
  };
};

export const follow: TableStep = ({ status, observed: { job } }) => {
  if (job?.phase !== 'running') return undefined;
  const progress = reportedProgress(job);
  return {
    status: {
      set: { startedAt: status.startedAt ?? job.startedAt, ...(progress && { progress }) },
      reason: 'Building',
      message: `Attempt ${status.jobName} running.`,
    },
    outcome: done('running'),
  };
};

export const finish: TableStep = ({ run: table, status, observed: { job } }) => {
  if (job?.phase !== 'succeeded') return undefined;
  const parsed = analyticsTableVersionSchema.safeParse(job.result);
  if (!parsed.success) return failed(status, job, `The worker returned an invalid result: ${parsed.error.message}`);
  const version = parsed.data;
  const message = `Published ${version.rows} rows from version ${version.sourceVersion} (${version.computedPeriods} periods computed).`;
  return {
    status: {
      set: {
        table: version,
        versions: [version, ...(status.versions ?? []).filter((v) => v.id !== version.id)].slice(
          0,
          table.spec.tableHistoryLimit,
        ),
        finishedAt: job.finishedAt,
        startedAt: status.startedAt ?? job.startedAt,
        progress: { done: 1, total: 1, percent: 100 },
        error: undefined,
      },
      reason: 'Ready',
      message,
    },
    event: { reason: 'Published', message },
    outcome: done('published'),
  };
};

/** Another attempt after the backoff while attempts remain; else the build fails and the previous table stays. */
export const retry: TableStep = ({ run: table, status, observed: { job, backoff }, now }) => {
  if (job?.phase !== 'failed' && job?.phase !== 'cancelled') return undefined;
  const attempt = status.attempt ?? 1;
  const inBuild = attempt - (status.runFirstAttempt ?? attempt) + 1;
  const error = job.error ?? { type: 'WorkerError', message: 'The attempt failed.' };
  if (inBuild >= MAX_ATTEMPTS) return failed(status, job, `${error.type}: ${error.message}`);
  const retryAfter =
    status.retryAfter ?? new Date(now.getTime() + retryDelaySeconds(inBuild, backoff) * 1000).toISOString();
  const wait = Date.parse(retryAfter) - now.getTime();
  if (wait > 0)
    return {
      status: {
        set: { retryAfter, error },
        reason: 'Retrying',
        message: `Attempt ${inBuild} of ${MAX_ATTEMPTS} failed (${error.type}: ${error.message}); the next starts at ${retryAfter}.`,
      },
      outcome: { kind: 'requeueAfter', ms: wait, reason: 'retry backoff' },
    };
  return {
    status: {
      set: { attempt: attempt + 1, jobName: attemptName(table, attempt + 1), retryAfter: undefined },
      reason: 'Building',
      message: `Attempt ${inBuild + 1} of ${MAX_ATTEMPTS} of the build.`,
    },
    outcome: done('retrying'),
  };
};

function failed(status: AnalyticsTableStatus, job: JobState, message: string): TableTransition {
  const error = job.error ?? { type: 'WorkerError', message };
  const served = status.table ? ` Version ${status.table.id} of the table stays served.` : '';
  return {
    status: { set: { error, finishedAt: job.finishedAt }, reason: 'Failed', message: `${message}.${served}` },
    event: { reason: 'Failed', message },
    outcome: done('failed'),
  };
}
