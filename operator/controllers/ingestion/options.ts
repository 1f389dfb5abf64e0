import { DEFAULT_BACKOFF, type RetryBackoff } from '../../../core/runs/backoff.ts';
import { defaultSplitOptions, type SplitOptions } from './split.ts';

/** How the Ingestion planner retries and splits attempts; the operator's configuration sets them. */
export interface IngestionPlanOptions extends RetryBackoff {
  /** When attempts are split into parts; never when absent. */
  split?: SplitOptions;
}

export const defaultIngestionPlanOptions: IngestionPlanOptions = {
  ...DEFAULT_BACKOFF,
  split: defaultSplitOptions,
};
