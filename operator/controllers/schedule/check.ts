import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import { currentVersionOf, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { DATASET_LABEL } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/kind.ts';
import type { Schedule } from '../../../core/resources/schedule/schema.ts';

export interface ScheduleCheckObserved {
  /** Whether this instance is read-only: schedules then never start anything. */
  readOnly: boolean;
  dataset: Dataset | undefined;
  source: DataSource | undefined;
  /** Unfinished runs writing the dataset. */
  activeRuns: string[];
}

export type CheckResult = {
  outcome: 'submitted' | 'not_materialized' | 'already_running' | 'read_only' | 'error';
  message: string;
  /** The sync run a `submitted` check starts. */
  run?: Ingestion;
};

/** Label of the runs a schedule started. */
export const SCHEDULE_LABEL = 'climate.stratus.dev/schedule';

/**
 * The run of one tick: named after the schedule and the tick, so that planning the same tick twice (a conflict
 * retried) applies the same object instead of starting a second run.
 */
export function runForTick(schedule: Schedule, dataset: Dataset, tick: Date): Ingestion {
  const stamp = tick.toISOString().slice(0, 16).replace(/[-:]/g, '').toLowerCase();
  return {
    apiVersion: API_VERSION,
    kind: ingestionKind.kind,
    metadata: {
      name: `${schedule.metadata.name.slice(0, 40)}-${stamp}`,
      namespace: schedule.metadata.namespace,
      labels: {
        [DATASET_LABEL]: dataset.metadata.name,
        'climate.stratus.dev/source': dataset.spec.source,
        [SCHEDULE_LABEL]: schedule.metadata.name,
      },
    },
    spec: {
      source: dataset.spec.source,
      datasetId: dataset.metadata.name,
      mode: 'sync',
      overwrite: false,
      publish: schedule.spec.publish,
      maxAttempts: schedule.spec.maxAttempts,
      cancelRequested: false,
    },
  };
}

/** One scheduled check of a dataset: what it finds, and the run it starts when the dataset can be synced. */
export function checkDataset(schedule: Schedule, observed: ScheduleCheckObserved, tick: Date): CheckResult {
  const id = schedule.spec.datasetId;
  if (observed.readOnly)
    return { outcome: 'read_only', message: 'This instance is read-only; scheduled syncs do not run here.' };
  const { dataset, source } = observed;
  if (!dataset || !currentVersionOf(dataset))
    return { outcome: 'not_materialized', message: `Dataset ${id} has no committed version yet; ingest it first.` };
  if (!source) return { outcome: 'error', message: `Data source ${dataset.spec.source} of dataset ${id} not found.` };
  if (source.spec.temporalDirection === 'future')
    return {
      outcome: 'error',
      message: `Data source ${source.metadata.name} is a forecast; its moving window is not synced on a schedule.`,
    };
  if (observed.activeRuns.length > 0)
    return { outcome: 'already_running', message: `${observed.activeRuns.join(', ')} is writing dataset ${id}.` };
  const run = runForTick(schedule, dataset, tick);
  return { outcome: 'submitted', message: `Started sync run ${run.metadata.name}.`, run };
}
