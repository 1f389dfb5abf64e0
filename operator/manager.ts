import { analyticsTableController } from './controllers/analytics-table/controller.ts';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { InformerCaches } from '../core/cluster/informer-caches.ts';
import type { Cluster } from '../core/cluster/port.ts';
import { dataSourceController } from './controllers/data-source/controller.ts';
import { deliveryController } from './controllers/delivery/controller.ts';
import { datasetController } from './controllers/dataset/controller.ts';
import { featureCollectionController } from './controllers/feature-collection/controller.ts';
import { ingestionController } from './controllers/ingestion/controller.ts';
import { oauth2ClientController } from './controllers/oauth2-client/controller.ts';
import { defaultRunOptions, type RunOptions } from '../core/runs/options.ts';
import { processingJobController } from './controllers/processing-job/controller.ts';
import { scheduleController } from './controllers/schedule/controller.ts';
import { startAuthStoreCollector } from './collectors/auth-store.ts';
import type { Collector } from './collectors/collector.ts';
import { startEventCollector } from './collectors/events.ts';
import type { JobRunner } from './jobs/runner.ts';
import { objectKey } from '../core/cluster/objects.ts';
import {
  Controller,
  type ControllerDefinition,
  type ControllerOptions,
  type RunLoggers,
} from './runtime/controller.ts';
import { soleProcess, type Leadership } from './runtime/leadership.ts';
import { controllerMetrics } from './runtime/metrics.ts';

export interface OperatorOptions {
  cluster: Cluster;
  registry: Registry;
  logger: Logger;
  /** Where the lines about runs go (their background files); without it, to `logger`. */
  runLogger?: RunLoggers;
  /** The namespaces to watch; all of them when empty or absent. */
  namespaces?: string[];
  resyncMs?: number;
  workers?: number;
  jobs: JobRunner;
  /** How every kind of run retries and splits its attempts; `defaultRunOptions` when absent. */
  runs?: RunOptions;
  /** Where stores live (the worker writes there) and the extent every dataset covers. */
  instance: {
    storageRoot: string;
    bbox: [number, number, number, number];
    /** The changelog switches of spec 3 (`changelog.aggregate`); on when absent. */
    changelog?: { aggregate: boolean };
    /** How long a dataset version stays after it stopped being current (`datasets.version_grace_period`). */
    versionGraceMs?: number;
  };
  /** A read-only instance records schedule checks as `read_only` and starts nothing. */
  readOnly?: boolean;
  /** Who runs schedules; the single process by default (embedded mode). */
  leadership?: Leadership;
  /** The controllers' clock (tests move it instead of waiting). */
  now?: () => Date;
  /** This process in the Events it records; `embedded` by default. */
  reportingInstance?: string;
  /**
   * Remove Events an hour after they were last seen (embedded mode: a Kubernetes API server expires them itself,
   * `--event-ttl`).
   */
  expireEvents?: boolean;
}

export interface RunningOperator {
  controllers: Controller[];
  /** The collectors of expired records and Events; each sweeps on its own timer, or when asked. */
  collectors: readonly Collector[];
  /** Settles once every controller has listed what it watches (what `/readyz` waits for). */
  synced(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Every controller of the operator; one line each. Exported so that what depends on which kinds have a
 * controller (the Argo CD health checks of docs/gitops.md, the examples' tests) follows this list.
 */
export function controllerDefinitions(
  options: Pick<OperatorOptions, 'instance' | 'runs' | 'readOnly' | 'leadership'>,
): ControllerDefinition[] {
  const runs = options.runs ?? defaultRunOptions;
  return [
    dataSourceController,
    datasetController(options.instance),
    featureCollectionController,
    ingestionController(options.instance, runs),
    processingJobController(options.instance, runs),
    deliveryController({ ...options.instance, backoff: runs.backoff }),
    scheduleController({ readOnly: options.readOnly ?? false, leadership: options.leadership ?? soleProcess }),
    oauth2ClientController(),
    analyticsTableController(options.instance, runs.backoff),
  ] as ControllerDefinition[];
}

export function startOperator(options: OperatorOptions): RunningOperator {
  // One informer per kind for every controller, and the port they write through, which keeps the caches fresh.
  const caches = new InformerCaches({
    cluster: options.cluster,
    namespaces: options.namespaces,
    logger: options.logger,
  });
  const shared: ControllerOptions = {
    cluster: caches.cluster,
    caches,
    metrics: controllerMetrics(options.registry),
    logger: options.logger,
    runLogger: options.runLogger,
    namespaces: options.namespaces,
    resyncMs: options.resyncMs,
    workers: options.workers,
    jobs: options.jobs,
    now: options.now,
    reportingInstance: options.reportingInstance,
  };
  const controllers = controllerDefinitions(options).map((definition) => new Controller(definition, shared));
  // A worker's progress or end is an event about its owner: reconcile the owner.
  options.jobs.onChange((job) => {
    const owner = controllers.find((c) => c.kind === job.owner.kind);
    owner?.queue.add(objectKey({ metadata: { name: job.owner.name, namespace: job.owner.namespace } }));
  });
  for (const controller of controllers) controller.start();
  const collectorOptions = {
    cluster: options.cluster,
    logger: options.logger,
    leadership: options.leadership ?? soleProcess,
    registry: options.registry,
    namespaces: options.namespaces,
    now: options.now,
  };
  const collectors = [
    startAuthStoreCollector(collectorOptions),
    ...(options.expireEvents ? [startEventCollector(collectorOptions)] : []),
  ];
  return {
    controllers,
    collectors,
    synced: () => Promise.all(controllers.map((c) => c.synced())).then(() => undefined),
    stop: async () => {
      await Promise.all(collectors.map((c) => c.stop()));
      await Promise.all(controllers.map((c) => c.stop()));
      await caches.stop();
      await options.jobs.stop();
    },
  };
}
