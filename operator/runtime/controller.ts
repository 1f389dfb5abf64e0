import type { Logger } from 'pino';
import { isApiError } from '../../core/cluster/errors.ts';
import { objectKey, type KindRef, type KubeObject } from '../../core/cluster/objects.ts';
import type { Cluster } from '../../core/cluster/port.ts';
import type { JobRunner } from '../jobs/runner.ts';
import type { Plan } from './actions.ts';
import { applyPlan } from './applier.ts';
import { InformerCaches } from '../../core/cluster/informer-caches.ts';
import { contextOf } from '../../core/logging/context.ts';
import type { RunBindings, RunKind } from '../../core/logging/index.ts';
import { logRunPlan } from './run-log.ts';
import type { ControllerMetrics } from './metrics.ts';
import { WorkQueue } from './work-queue.ts';

/** Another kind whose changes concern objects of the controller's kind: `keysOf` says which. */
export interface RelatedWatch {
  kind: KindRef;
  keysOf(object: KubeObject): string[];
}

/** One controller: a kind, how to observe the world around an object, and a pure planner. */
export interface ControllerDefinition<R extends KubeObject = KubeObject, O = unknown> {
  name: string;
  kind: KindRef;
  /** Kinds whose events requeue the objects they concern (controller-runtime's `Watches` with a mapping). */
  watches?: RelatedWatch[];
  /**
   * Reconciles of this kind run at once (controller-runtime's `MaxConcurrentReconciles`); the operator's `workers`
   * when absent. A key is never reconciled twice at once whatever the number.
   */
  workers?: number;
  /** What the planner needs besides the object: from the cluster, the job runner, or the shared informer caches. */
  observe(resource: R, cluster: Cluster, jobs: JobRunner | undefined, caches: InformerCaches): Promise<O>;
  plan(resource: R, observed: O, now: Date): Plan;
  /** For a kind whose objects are runs: which kind of run one is, which decides the file its lines go to. */
  runKind?(resource: R): RunKind;
}

/** The logger of one run, in its background file (core/logging: `Logging.forRun`). */
export type RunLoggers = (kind: RunKind, bindings: RunBindings) => Logger;

export interface ControllerOptions {
  cluster: Cluster;
  /**
   * The process's informer caches, which every controller's watches share (one informer per kind); the controller
   * keeps caches of its own without them. Writes go through `caches.cluster`, so that reads from a cache see them.
   */
  caches?: InformerCaches;
  metrics: ControllerMetrics;
  logger: Logger;
  /** Where a run's lines go; without it, to `logger`. */
  runLogger?: RunLoggers;
  jobs?: JobRunner;
  /** The namespaces to watch; all of them when empty or absent. */
  namespaces?: string[];
  workers?: number;
  resyncMs?: number;
  /** Delay before re-establishing a failed watch. */
  rewatchMs?: number;
  now?: () => Date;
  /** Names this process in the Events it records (`reportingInstance`): the pod, where several may lead in turn. */
  reportingInstance?: string;
  queue?: Partial<Pick<ConstructorParameters<typeof WorkQueue>[0], 'baseDelayMs' | 'maxDelayMs' | 'qps' | 'burst'>>;
}

function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/**
 * Level-triggered reconciliation: events only say which key to look at; every reconcile reads the object
 * afresh and plans from what is, so a missed event is healed by the next event or the periodic resync.
 */
export class Controller<R extends KubeObject = KubeObject, O = unknown> {
  readonly queue: WorkQueue;
  readonly #definition: ControllerDefinition<R, O>;
  readonly #options: Required<Pick<ControllerOptions, 'workers' | 'resyncMs' | 'rewatchMs'>> & ControllerOptions;
  readonly #caches: InformerCaches;
  /** Whether the caches are this controller's own, to stop with it. */
  readonly #ownCaches: boolean;
  readonly #unsubscribe: (() => void)[] = [];
  #running: Promise<unknown>[] = [];
  readonly #synced: Promise<void>[] = [];
  #resyncTimer: NodeJS.Timeout | undefined;

  constructor(definition: ControllerDefinition<R, O>, options: ControllerOptions) {
    this.#definition = definition;
    this.#options = {
      ...options,
      workers: definition.workers ?? options.workers ?? 2,
      resyncMs: options.resyncMs ?? 10 * 60_000,
      rewatchMs: options.rewatchMs ?? 1_000,
    };
    this.#ownCaches = options.caches === undefined;
    this.#caches =
      options.caches ??
      new InformerCaches({
        cluster: options.cluster,
        namespaces: options.namespaces,
        logger: options.logger,
        rewatchMs: options.rewatchMs,
      });
    this.queue = new WorkQueue({ name: definition.name, metrics: options.metrics, ...options.queue });
  }

  get name(): string {
    return this.#definition.name;
  }

  get kind(): KindRef {
    return this.#definition.kind;
  }

  start(): void {
    const { metrics, workers, resyncMs } = this.#options;
    metrics.maxConcurrent.set({ controller: this.name }, workers);
    const primary: RelatedWatch = { kind: this.#definition.kind, keysOf: (object) => [objectKey(object)] };
    for (const watch of [primary, ...(this.#definition.watches ?? [])])
      for (const namespace of this.#caches.namespaces) this.#inform(watch, namespace);
    for (let i = 0; i < workers; i++) this.#running.push(this.#worker());
    this.#resyncTimer = setInterval(() => void this.resync(), resyncMs);
    this.#resyncTimer.unref?.();
  }

  /** Settles once every watch of the controller has listed its kind: from then on it has seen every object. */
  synced(): Promise<void> {
    return Promise.all(this.#synced).then(() => undefined);
  }

  async resync(): Promise<void> {
    try {
      for (const namespace of this.#caches.namespaces) {
        const { items } = await this.#options.cluster.list(this.#definition.kind, { namespace });
        for (const item of items) this.queue.add(objectKey(item));
      }
    } catch (err) {
      this.#options.logger.warn({ err, controller: this.name }, 'resync failed');
    }
  }

  /** Queues the keys each object of the kind concerns, from the shared cache once it holds the object. */
  #inform({ kind, keysOf }: RelatedWatch, namespace: string | undefined): void {
    const cache = this.#caches.of(kind, namespace);
    const enqueue = (objects: readonly KubeObject[]) =>
      objects.forEach((object) => keysOf(object).forEach((key) => this.queue.add(key)));
    this.#unsubscribe.push(cache.subscribe(enqueue));
    this.#synced.push(cache.start());
  }

  async #worker(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      this.#options.metrics.activeWorkers.inc({ controller: this.name });
      try {
        await this.reconcile(key);
      } finally {
        this.#options.metrics.activeWorkers.dec({ controller: this.name });
        this.queue.done(key);
      }
    }
  }

  /** The logger of a run: its kind's background file, with the run and the request that started it. */
  #runLog(resource: R): Logger | undefined {
    const kind = this.#definition.runKind?.(resource);
    if (!kind) return undefined;
    const { name, namespace } = resource.metadata;
    const bindings = { run: `${namespace ?? ''}/${name}`, ...contextOf(resource) };
    return this.#options.runLogger?.(kind, bindings) ?? this.#options.logger.child(bindings);
  }

  /** One reconcile of `key`: read, observe, plan, apply; requeue as the outcome or a failure says. */
  async reconcile(key: string): Promise<void> {
    const { metrics } = this.#options;
    const cluster = this.#caches.cluster;
    let logger = this.#options.logger;
    const now = (this.#options.now ?? (() => new Date()))();
    const started = performance.now();
    const labels = { controller: this.name };
    try {
      const { name, namespace } = splitKey(key);
      const resource = await cluster.get<R>(this.#definition.kind, name, namespace);
      if (!resource) {
        this.queue.forget(key);
        // Attempts of a deleted run would otherwise be held by the runner for the life of the process.
        this.#options.jobs?.forgetOwner?.({ kind: this.#definition.kind, name, namespace });
        metrics.reconcileTotal.inc({ ...labels, result: 'success' });
        return;
      }
      const runLog = this.#runLog(resource);
      logger = runLog ?? logger;
      const observed = await this.#definition.observe(resource, cluster, this.#options.jobs, this.#caches);
      const plan = this.#definition.plan(resource, observed, now);
      await applyPlan(
        cluster,
        this.#definition.kind,
        resource,
        plan,
        now,
        this.#options.jobs,
        this.#options.reportingInstance,
      );
      if (runLog) logRunPlan(runLog, resource, plan);
      this.queue.forget(key);
      if (plan.outcome.kind === 'requeueAfter') {
        this.queue.addAfter(key, plan.outcome.ms);
        metrics.reconcileTotal.inc({ ...labels, result: 'requeue_after' });
      } else metrics.reconcileTotal.inc({ ...labels, result: 'success' });
      logger.debug({ controller: this.name, key, outcome: plan.outcome }, 'reconciled');
    } catch (err) {
      if (isApiError(err, 'Conflict')) {
        // Planned from a stale read: plan again from a fresh one.
        metrics.reconcileTotal.inc({ ...labels, result: 'requeue' });
        this.queue.add(key);
      } else {
        metrics.reconcileTotal.inc({ ...labels, result: 'error' });
        metrics.reconcileErrors.inc(labels);
        logger.error({ err, controller: this.name, key }, 'reconcile failed');
        this.queue.addRateLimited(key);
      }
    } finally {
      metrics.reconcileTime.observe(labels, (performance.now() - started) / 1000);
    }
  }

  async stop(): Promise<void> {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    clearInterval(this.#resyncTimer);
    this.queue.shutdown();
    await Promise.all([...this.#running, ...(this.#ownCaches ? [this.#caches.stop()] : [])]);
  }
}
