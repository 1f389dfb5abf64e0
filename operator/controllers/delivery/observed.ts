import type { Checkpoint } from '../../../core/exports/checkpoint.ts';
import type { Delivery, DeliveryStatus } from '../../../core/resources/delivery/schema.ts';
import type { Export } from '../../../core/resources/export/schema.ts';
import type { ProcessingJob } from '../../../core/resources/processing-job/schema.ts';
import type { Program } from '../../../core/resources/program/schema.ts';
import type { RetryBackoff } from '../../../core/runs/backoff.ts';
import type { JobState } from '../../jobs/runner.ts';

/** What the Delivery planner observes besides the delivery itself (the controller's `observe` reads it). */
export interface DeliveryObserved {
  job: JobState | undefined;
  /** The worker that removes a deleted delivery's checkpoint (`deliveryCleanupName`). */
  cleanup?: JobState | undefined;
  /** Ended deliveries of the export older than its newest `deliveryHistoryLimit` (observed for an ended one). */
  expired?: string[];
  export: Export | undefined;
  /** The Program a tracker target names, when it has one. */
  program: Program | undefined;
  source: ProcessingJob | undefined;
  checkpoint: Checkpoint | undefined;
  /** Unfinished deliveries to the same target that run before this one. */
  ahead: string[];
  storageRoot: string;
  /** `changelog.aggregate`; a tracker target follows its program's switch instead. */
  changelog: boolean;
  backoff?: RetryBackoff;
}

/** One reconcile of a delivery. */
export interface DeliveryContext {
  run: Delivery;
  observed: DeliveryObserved;
  now: Date;
  at: string;
  status: DeliveryStatus;
}
