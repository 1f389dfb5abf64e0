import { z } from 'zod';

/**
 * Who raises a run error, which decides whether the run retries: the planner fails the run at once (no new attempt
 * could cure it), and so does a task that ends with it as its definite outcome (`outcome`: a delivery the export
 * cannot take); an attempt that fails (its worker, or its job runner for a worker that could not report) is retried
 * while attempts remain (`spec.maxAttempts`, backoff `min(240, 60*2^(n-1))` s), whatever its code.
 */
export type RunErrorSource = 'planner' | 'worker' | 'runner' | 'outcome';

/**
 * The one catalogue of run errors: every code a run records as `status.error.type` (the job record's
 * `error.type`), with who raises it. What each means is in `docs/errors.md#run-errors`, which lists exactly these
 * codes (a test keeps the two in step).
 */
export const runErrorCatalogue = {
  // The planner, before or after an attempt; some codes also come from the worker.
  SourceNotFound: ['planner', 'worker'],
  InvalidRequest: ['planner', 'worker'],
  NotSyncable: ['planner'],
  StoreUnreadable: ['planner'],
  WorkerError: ['planner', 'worker'],
  Unknown: ['planner'],
  // The worker's tasks.
  InvalidInput: ['worker'],
  UnknownTask: ['worker'],
  ProviderUnavailable: ['worker'],
  UnsupportedFormat: ['worker'],
  SpatialShapeChanged: ['worker'],
  // The raster and feature providers, through the worker.
  InvalidParameters: ['worker'],
  OutsideCoverage: ['worker'],
  PeriodUnavailable: ['worker'],
  AuthenticationFailed: ['worker'],
  UpstreamError: ['worker'],
  UpstreamUnavailable: ['worker'],
  UnsupportedLayout: ['worker'],
  InvalidResponse: ['worker'],
  InvalidGeoJSON: ['worker'],
  InvalidGeoParquet: ['worker'],
  InvalidFeatures: ['worker'],
  UnsupportedCrs: ['worker'],
  // Deliveries of exports, through the worker.
  InvalidPayload: ['planner', 'outcome'],
  MappingIncomplete: ['outcome'],
  TemporalAggregationRequired: ['outcome'],
  IncompletePeriods: ['outcome'],
  DeliveryIncomplete: ['worker', 'outcome'],
  // The job runners, for a worker that could not report its end.
  WorkerCrashed: ['runner'],
  DeadlineExceeded: ['runner'],
  SecretNotFound: ['runner'],
  JobNotCreated: ['runner'],
  JobDeleted: ['runner'],
  ReportMissing: ['runner'],
  InputTooLarge: ['runner'],
  CredentialsAcrossNamespaces: ['runner'],
} as const satisfies Record<string, readonly RunErrorSource[]>;

export type RunErrorCode = keyof typeof runErrorCatalogue;

export const runErrorCodes = Object.keys(runErrorCatalogue) as [RunErrorCode, ...RunErrorCode[]];

/** A run error code on the wire: a worker's report, a job state. */
export const runErrorCodeSchema = z.enum(runErrorCodes);

/** A run's `error`: the code as `type` (the field name of the job record) and what went wrong. */
export interface RunErrorRecord {
  type: RunErrorCode;
  message: string;
}

/** A failure of a run with its stable code, whoever raises it (a provider, a task, the worker). */
export class RunError extends Error {
  readonly code: RunErrorCode;

  constructor(code: RunErrorCode, message: string) {
    super(message);
    this.name = 'RunError';
    this.code = code;
  }
}
