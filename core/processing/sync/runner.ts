/**
 * Synchronous runs (`POST /result`) off the main thread: each run executes in a worker thread of its own created
 * with V8 resource limits (`processing.sync.heap_size`, `processing.sync.young_generation_size`), so that neither
 * its CPU nor its memory can stop the server. A thread past its heap, past the wall time (`processing.sync.timeout`,
 * `terminate()` stops even a tight loop) or whose client went away is terminated; the first two are refused with
 * 400 `ProcessGraphComplexity` naming the limit. The heap limit bounds the buffers of typed arrays too, which V8
 * keeps outside the heap: a watch (`memory-watch.ts`) terminates a thread whose heap and buffers together pass it. At most `processing.sync.concurrency` runs execute at once; others
 * wait their turn, and the wait counts in their wall time. One thread is kept started and idle, so that a run does
 * not wait for the engine's modules to load; it is replaced as soon as a run takes it.
 */
import { Worker } from 'node:worker_threads';
import type { InstanceConfig } from '../../config/index.ts';
import { ProcessingError, type ProcessingErrorCode } from '../errors.ts';
import { watchMemory } from './memory-watch.ts';
import type { SyncAnswer, SyncRunInput } from './run.ts';

export type SyncConfig = InstanceConfig['processing']['sync'];

/** What a run's thread answers: its encoded body, an engine refusal, or another failure (a 500). */
export type SyncMessage =
  | { answer: SyncAnswer }
  | { refusal: { code: ProcessingErrorCode; message: string } }
  | { failure: { name: string; message: string } };

const WORKER = new URL('./worker.ts', import.meta.url);
const MB = 1024 * 1024;

export class SyncRunner {
  private readonly config: SyncConfig;
  private spare: Worker | undefined;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(config: SyncConfig) {
    this.config = config;
  }

  /**
   * Runs the graph of `input` in a thread and resolves to its answer. Rejects with the engine's refusal, with a
   * `ProcessGraphComplexity` naming the limit that stopped it, or with `gone`'s reason when the client left.
   */
  async run(input: Omit<SyncRunInput, 'limits'>, gone: AbortSignal): Promise<SyncAnswer> {
    const deadline = AbortSignal.timeout(this.config.timeoutMs);
    const signal = AbortSignal.any([deadline, gone]);
    try {
      await this.acquire(signal);
    } catch {
      throw this.stopped(deadline, gone);
    }
    try {
      return await this.execute(input, signal);
    } catch (err) {
      throw signal.aborted ? this.stopped(deadline, gone) : err;
    } finally {
      this.release();
    }
  }

  /** Stops the idle thread; runs under way end with their requests. */
  close(): void {
    this.closed = true;
    void this.spare?.terminate();
    this.spare = undefined;
  }

  private stopped(deadline: AbortSignal, gone: AbortSignal): unknown {
    if (!deadline.aborted) return gone.reason;
    return new ProcessingError(
      'ProcessGraphComplexity',
      `The run takes longer than the ${this.config.timeoutMs / 1000} s a synchronous run may (processing.sync.timeout); run it as a batch job (POST /jobs).`,
    );
  }

  private acquire(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.running < this.config.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      // The slot passes from the run that ends to this one: `running` stays as it is.
      const grant = () => {
        signal.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        this.waiting.splice(this.waiting.indexOf(grant), 1);
        reject(signal.reason);
      };
      this.waiting.push(grant);
      signal.addEventListener('abort', leave, { once: true });
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER, {
      resourceLimits: {
        maxOldGenerationSizeMb: Math.max(1, Math.floor(this.config.heapBytes / MB)),
        maxYoungGenerationSizeMb: Math.max(1, Math.floor(this.config.youngGenerationBytes / MB)),
      },
    });
    // An idle thread does not keep the process alive; `execute` refs the one it runs in.
    worker.unref();
    worker.once('exit', () => {
      if (this.spare === worker) this.spare = undefined;
    });
    return worker;
  }

  private execute(input: Omit<SyncRunInput, 'limits'>, signal: AbortSignal): Promise<SyncAnswer> {
    const worker = this.spare ?? this.spawn();
    // The next run, perhaps one waiting for this one, finds a started thread.
    this.spare = this.closed ? undefined : this.spawn();
    worker.ref();
    const { maxCells, maxReadCells, maxOutputBytes, maxMemoryBytes } = this.config;
    return new Promise<SyncAnswer>((resolve, reject) => {
      let failure: Error | undefined;
      const settle = (outcome: () => void) => {
        watch.stop();
        signal.removeEventListener('abort', abort);
        worker.removeAllListeners('message');
        worker.removeAllListeners('exit');
        worker.on('error', () => {});
        void worker.terminate();
        outcome();
      };
      const abort = () => settle(() => reject(signal.reason));
      signal.addEventListener('abort', abort, { once: true });
      const watch = watchMemory(worker, this.config.heapBytes, (held) =>
        settle(() =>
          reject(
            new ProcessingError(
              'ProcessGraphComplexity',
              `The run holds ${Math.round(held / MB)} MB in its heap and its arrays' buffers, more than the ${this.config.heapBytes / MB} MB a synchronous run may use (processing.sync.heap_size); run it as a batch job (POST /jobs).`,
            ),
          ),
        ),
      );
      worker.once('message', (message: SyncMessage) =>
        settle(() => {
          if ('answer' in message) resolve(message.answer);
          else if ('refusal' in message) reject(new ProcessingError(message.refusal.code, message.refusal.message));
          else reject(Object.assign(new Error(message.failure.message), { name: message.failure.name }));
        }),
      );
      // An error ends the thread; 'exit' follows and answers for it.
      worker.on('error', (err) => (failure = err));
      worker.once('exit', (code) =>
        settle(() =>
          reject(
            (failure as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new ProcessingError(
                  'ProcessGraphComplexity',
                  `The run needs more memory than the ${this.config.heapBytes / MB} MB heap a synchronous run may use (processing.sync.heap_size); run it as a batch job (POST /jobs).`,
                )
              : new Error(`the synchronous run's thread stopped (${failure?.message ?? `exit code ${code}`})`),
          ),
        ),
      );
      worker.postMessage({ ...input, limits: { maxCells, maxReadCells, maxOutputBytes, maxMemoryBytes } });
    });
  }
}
