/**
 * The process's worker threads: a fixed number of `node:worker_threads` workers that run CPU-heavy tasks (the
 * engine decodes stored chunks and reduces zonal statistics on them) so that every core works while the main
 * thread stays free for I/O and requests. A task is an exported function of a module, named by the module's URL
 * and the export (`taskRef(import.meta.url, 'name')`); its input and output cross threads by structured clone,
 * and the buffers they name are transferred (`transfer`) or shared (a `SharedArrayBuffer` is never copied).
 *
 * With size 0 the tasks run on the calling thread: same code, same results. Idle workers do not keep the process
 * alive (a busy one does, until its task settles). A task's error, or a worker that dies, rejects that task with a
 * `WorkerTaskError` carrying the task's error name and message; the pool replaces the worker and goes on.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** A task: the exported function `name` of the module at `module` (a file URL). */
export interface TaskRef<I, O> {
  readonly module: string;
  readonly name: string;
  /** Types only: what the task takes and gives. */
  readonly types?: (input: I) => O;
}

/** What a task function returns: its value, and the buffers of it to transfer to the caller instead of copying. */
export interface TaskOutput<O> {
  value: O;
  transfer?: ArrayBuffer[];
}

export type TaskFunction<I, O> = (input: I) => TaskOutput<O> | Promise<TaskOutput<O>>;

export function taskRef<I, O>(module: string, name: string): TaskRef<I, O> {
  return { module, name };
}

/** A task that failed in a worker (or whose worker stopped): the task's error name and message. */
export class WorkerTaskError extends Error {
  /** The name of the error the task threw (`ZarrFormatError`, ...), or `WorkerExit` when its worker stopped. */
  readonly taskErrorName: string;

  constructor(taskErrorName: string, message: string) {
    super(message);
    this.name = 'WorkerTaskError';
    this.taskErrorName = taskErrorName;
  }
}

export interface RunOptions {
  /** Buffers of the input to transfer to the worker (they become unusable here). */
  transfer?: ArrayBuffer[];
  /** Rejects the task with the signal's reason; a task already running finishes and its value is dropped. */
  signal?: AbortSignal;
}

interface Job {
  id: number;
  task: TaskRef<unknown, unknown>;
  input: unknown;
  transfer: ArrayBuffer[];
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  settled: boolean;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
}

type Answer = { id: number; value: unknown } | { id: number; error: { name: string; message: string } };

const WORKER = new URL('./worker.ts', import.meta.url);

/** The task function a module exports under `name`: what workers and the inline mode call. */
export async function loadTask(module: string, name: string): Promise<TaskFunction<unknown, unknown>> {
  const fn = ((await import(module)) as Record<string, unknown>)[name];
  if (typeof fn !== 'function') throw new Error(`module ${module} exports no task ${name}`);
  return fn as TaskFunction<unknown, unknown>;
}

export class WorkerPool {
  /** Worker threads (0: tasks run on the calling thread). */
  readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;
  private closing: Promise<void> | undefined;

  constructor(size = availableParallelism()) {
    if (!Number.isInteger(size) || size < 0) throw new RangeError(`a pool of ${size} workers`);
    this.size = size;
  }

  /** Runs `task` on `input` in a worker (FIFO when all are busy) and resolves to its value. */
  run<I, O>(task: TaskRef<I, O>, input: I, options: RunOptions = {}): Promise<O> {
    const { signal } = options;
    if (this.closing) return Promise.reject(new WorkerTaskError('WorkerPoolClosed', 'the worker pool is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.size === 0) return this.runInline(task, input, signal);
    return new Promise<O>((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        task: task as TaskRef<unknown, unknown>,
        input,
        transfer: options.transfer ?? [],
        resolve: resolve as (value: unknown) => void,
        reject,
        settled: false,
      };
      if (signal) {
        const abort = () => {
          const queued = this.queue.indexOf(job);
          if (queued >= 0) this.queue.splice(queued, 1);
          this.settle(job, () => reject(signal.reason));
        };
        signal.addEventListener('abort', abort, { once: true });
        job.resolve = (value) => {
          signal.removeEventListener('abort', abort);
          resolve(value as O);
        };
        job.reject = (error) => {
          signal.removeEventListener('abort', abort);
          reject(error);
        };
      }
      this.queue.push(job);
      this.dispatch();
    });
  }

  /**
   * Starts every worker now and has each load the modules of `tasks`, so that the first tasks do not wait for a
   * thread to boot (Node strips the types of every module a worker loads). Resolves once every worker has loaded
   * them; nothing to do with size 0.
   */
  async warm(...tasks: Pick<TaskRef<never, unknown>, 'module'>[]): Promise<void> {
    if (this.closing) return;
    while (this.slots.length < this.size) this.spawn();
    await Promise.all(
      this.slots.map(
        ({ worker }) =>
          new Promise<void>((done) => {
            const id = this.nextId++;
            const loaded = (answer: { id: number }) => {
              if (answer.id !== id) return;
              worker.off('message', loaded);
              worker.off('exit', stopped);
              done();
            };
            // A worker that stops while loading is replaced by the next task; warming is only ahead of time.
            const stopped = () => done();
            worker.on('message', loaded);
            worker.once('exit', stopped);
            worker.postMessage({ id, preload: tasks.map((t) => t.module) });
          }),
      ),
    );
  }

  /**
   * Stops taking tasks: queued ones are rejected, running ones finish, then the workers end. Resolves once they
   * have.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const job of this.queue.splice(0))
        this.settle(job, () => job.reject(new WorkerTaskError('WorkerPoolClosed', 'the worker pool is closed')));
      await Promise.all(
        this.slots.map(
          (slot) =>
            new Promise<void>((done) => {
              slot.worker.once('exit', () => done());
              if (!slot.job) void slot.worker.terminate();
            }),
        ),
      );
    })();
    return this.closing;
  }

  private async runInline<I, O>(task: TaskRef<I, O>, input: I, signal: AbortSignal | undefined): Promise<O> {
    const fn = await loadTask(task.module, task.name);
    signal?.throwIfAborted();
    try {
      return (await fn(input)).value as O;
    } catch (err) {
      // The same error as from a worker, whichever mode runs the task.
      const { name, message } = err instanceof Error ? err : { name: 'Error', message: String(err) };
      throw new WorkerTaskError(name, message);
    }
  }

  private settle(job: Job, fn: () => void): void {
    if (job.settled) return;
    job.settled = true;
    fn();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage(
        { id: job.id, module: job.task.module, name: job.task.name, input: job.input },
        job.transfer,
      );
    }
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER);
    const slot: Slot = { worker, job: undefined };
    // Idle workers must not keep the process alive; `dispatch` refs a worker while it has a task.
    worker.unref();
    worker.on('message', (answer: Answer) => {
      const job = slot.job;
      if (!job || job.id !== answer.id) return;
      slot.job = undefined;
      worker.unref();
      if ('error' in answer)
        this.settle(job, () => job.reject(new WorkerTaskError(answer.error.name, answer.error.message)));
      else this.settle(job, () => job.resolve(answer.value));
      if (this.closing) void worker.terminate();
      else this.dispatch();
    });
    // An uncaught error ends the worker; 'exit' follows and reports it to the task.
    let failure: Error | undefined;
    worker.on('error', (err) => (failure = err));
    worker.on('exit', (code) => {
      this.slots.splice(this.slots.indexOf(slot), 1);
      const job = slot.job;
      if (job)
        this.settle(job, () =>
          job.reject(
            new WorkerTaskError('WorkerExit', `the worker thread stopped (${failure?.message ?? `exit code ${code}`})`),
          ),
        );
      if (!this.closing) this.dispatch();
    });
    this.slots.push(slot);
    return slot;
  }
}

let shared: WorkerPool | undefined;

/**
 * The pool of this process, which the engine runs its CPU-heavy tasks on: as many workers as cores unless
 * `configureProcessPool` set another size (instance configuration `processing.worker_threads`).
 */
export function processPool(): WorkerPool {
  return (shared ??= new WorkerPool());
}

/** Closes the process's pool (`close`); the next `processPool()` starts a new one. */
export async function closeProcessPool(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.close();
}

/** Sets the size of the process's pool; a pool of another size in use is closed once its tasks finish. */
export function configureProcessPool(size: number): WorkerPool {
  if (shared?.size === size) return shared;
  const previous = shared;
  shared = new WorkerPool(size);
  void previous?.close();
  return shared;
}
