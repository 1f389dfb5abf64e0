import type { ControllerMetrics } from './metrics.ts';

export interface WorkQueueOptions {
  name: string;
  metrics: ControllerMetrics;
  /** Per-item exponential backoff: base * 2^failures, capped (controller-runtime: 5 ms to 1000 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Overall token bucket (controller-runtime: 10 qps, burst 100). */
  qps?: number;
  burst?: number;
  now?: () => number;
}

/**
 * A work queue after client-go's: a key queued many times is processed once; a key is never handed to two
 * workers at once (a re-add while it is processed runs after it is done); failures back off per key, and
 * the whole queue is rate limited.
 */
export class WorkQueue {
  readonly #name: string;
  readonly #metrics: ControllerMetrics;
  readonly #base: number;
  readonly #max: number;
  readonly #qps: number;
  readonly #burst: number;
  readonly #now: () => number;
  #queue: string[] = [];
  #queued = new Map<string, number>(); // key -> time added
  #processing = new Map<string, number>(); // key -> time started
  #dirty = new Set<string>(); // re-added while processing
  #failures = new Map<string, number>();
  #timers = new Map<string, NodeJS.Timeout>();
  #waiters: ((key: string | undefined) => void)[] = [];
  #tokens: number;
  #lastRefill: number;
  #shuttingDown = false;

  constructor(options: WorkQueueOptions) {
    this.#name = options.name;
    this.#metrics = options.metrics;
    this.#base = options.baseDelayMs ?? 5;
    this.#max = options.maxDelayMs ?? 1_000_000;
    this.#qps = options.qps ?? 10;
    this.#burst = options.burst ?? 100;
    this.#now = options.now ?? Date.now;
    this.#tokens = this.#burst;
    this.#lastRefill = this.#now();
  }

  get length(): number {
    return this.#queue.length;
  }

  add(key: string): void {
    if (this.#shuttingDown) return;
    if (this.#processing.has(key)) {
      this.#dirty.add(key);
      return;
    }
    if (this.#queued.has(key)) return;
    this.#metrics.adds.inc({ name: this.#name });
    const waiter = this.#waiters.shift();
    if (waiter) {
      this.#processing.set(key, this.#now());
      this.#metrics.queueDuration.observe({ name: this.#name }, 0);
      waiter(key);
      return;
    }
    this.#queued.set(key, this.#now());
    this.#queue.push(key);
    this.#metrics.depth.set({ name: this.#name }, this.#queue.length);
  }

  addAfter(key: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const existing = this.#timers.get(key);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref?.();
    this.#timers.set(key, timer);
  }

  /** Delay before the next try of `key`: the larger of its own backoff and the queue-wide token bucket. */
  nextDelay(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    const own = Math.min(this.#base * 2 ** failures, this.#max);
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#lastRefill) / 1000) * this.#qps);
    this.#lastRefill = now;
    this.#tokens -= 1;
    const bucket = this.#tokens >= 0 ? 0 : (-this.#tokens / this.#qps) * 1000;
    return Math.max(own, bucket);
  }

  addRateLimited(key: string): void {
    this.#metrics.retries.inc({ name: this.#name });
    this.addAfter(key, this.nextDelay(key));
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** The next key to process, or undefined once the queue shuts down. */
  get(): Promise<string | undefined> {
    const key = this.#queue.shift();
    if (key !== undefined) {
      const added = this.#queued.get(key)!;
      this.#queued.delete(key);
      this.#processing.set(key, this.#now());
      this.#metrics.depth.set({ name: this.#name }, this.#queue.length);
      this.#metrics.queueDuration.observe({ name: this.#name }, (this.#now() - added) / 1000);
      return Promise.resolve(key);
    }
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  done(key: string): void {
    const started = this.#processing.get(key);
    this.#processing.delete(key);
    if (started !== undefined) this.#metrics.workDuration.observe({ name: this.#name }, (this.#now() - started) / 1000);
    if (this.#dirty.delete(key)) this.add(key);
    this.#updateInFlight();
  }

  #updateInFlight(): void {
    const now = this.#now();
    const ages = [...this.#processing.values()].map((t) => (now - t) / 1000);
    this.#metrics.unfinishedWork.set(
      { name: this.#name },
      ages.reduce((a, b) => a + b, 0),
    );
    this.#metrics.longestRunning.set({ name: this.#name }, ages.length ? Math.max(...ages) : 0);
  }

  shutdown(): void {
    this.#shuttingDown = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    for (const waiter of this.#waiters.splice(0)) waiter(undefined);
  }
}
