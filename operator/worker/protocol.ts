/** Messages between the job runner and a worker process (IPC in embedded mode, JSON lines on stdout in a Job). */
export type ToWorker = { type: 'start'; task: string; input: unknown } | { type: 'cancel' };

export type FromWorker =
  | { type: 'progress'; done: number; total: number; message?: string }
  | { type: 'result'; value: unknown }
  | { type: 'error'; errorType: string; message: string }
  | { type: 'cancelled' };

export interface TaskContext {
  signal: AbortSignal;
  /** Throws `Cancelled` when cancellation was requested; call it between units of work. */
  throwIfCancelled(): void;
  progress(done: number, total: number, message?: string): void;
}

export type Task = (input: unknown, context: TaskContext) => Promise<unknown>;

/** A failure with a stable type, reported as `error.type` of the run. */
export class TaskError extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.name = 'TaskError';
    this.type = type;
  }
}

export class Cancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'Cancelled';
  }
}
