import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import type { Dataset } from '../../../core/resources/dataset/schema.ts';
import type { FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import type { Workflow } from '../../../core/resources/workflow/schema.ts';
import type { JobState } from '../../jobs/runner.ts';

/** Where stores live and the extent every dataset covers. */
export interface InstanceScope {
  storageRoot: string;
  bbox: [number, number, number, number];
}

/** What the Ingestion planner observes of the world besides the run itself (the controller's `observe` reads it). */
export interface IngestionObserved {
  /** The DataSource the run fetches, if it exists. */
  source: DataSource | undefined;
  /** The Dataset the run writes, if it exists yet. */
  dataset: Dataset | undefined;
  /** The FeatureCollection a feature refresh writes, if it exists yet. */
  collection?: FeatureCollection | undefined;
  /** The worker attempt of `status.attempt`, if the runner knows it. */
  job: JobState | undefined;
  /** The unfinished run that holds the target's writer claim, when not this one: this run waits for it (one writer). */
  earlierWriters: string[];
  /**
   * For a sync run about to start an attempt: the first and last period of the committed store (read from its
   * files), or why it could not be read; undefined when the dataset has no committed version.
   */
  committed?: { start: string; end: string } | { error: string };
  instance: InstanceScope;
  /** Workflows whose triggers a `dataset.updated` of the run's dataset runs, read once its attempt succeeded. */
  workflows?: Workflow[];
}
