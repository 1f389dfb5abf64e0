import { defaultSplitOptions, type SplitOptions } from './split.ts';

/** How the Ingestion planner retries and splits attempts; the operator's configuration sets them. */
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
