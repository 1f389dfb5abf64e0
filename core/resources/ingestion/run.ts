import type { Ingestion } from './schema.ts';

/** Phases after which a run never changes again. */
export const TERMINAL_PHASES: ReadonlySet<string> = new Set(['successful', 'failed', 'cancelled']);

export function isFinished(run: Ingestion): boolean {
  return TERMINAL_PHASES.has(run.status?.phase ?? '');
}

/** The Dataset a run writes: `spec.datasetId`, else the source's name. */
export function datasetIdOf(run: Ingestion): string {
  return run.spec.datasetId ?? run.spec.source;
}

/** Label that ties a run to the Dataset it writes, so the runs of one dataset are one selector away. */
export const DATASET_LABEL = 'climate.stratus.dev/dataset';
