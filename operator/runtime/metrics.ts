import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Controller metrics under controller-runtime's and client-go's names, so existing dashboards work. */
export interface ControllerMetrics {
  depth: Gauge<'name'>;
  adds: Counter<'name'>;
  queueDuration: Histogram<'name'>;
  workDuration: Histogram<'name'>;
  retries: Counter<'name'>;
  unfinishedWork: Gauge<'name'>;
  longestRunning: Gauge<'name'>;
  reconcileTotal: Counter<'controller' | 'result'>;
  reconcileErrors: Counter<'controller'>;
  reconcileTime: Histogram<'controller'>;
  maxConcurrent: Gauge<'controller'>;
  activeWorkers: Gauge<'controller'>;
}

const buckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

function reuse<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function controllerMetrics(registry: Registry): ControllerMetrics {
  const registers = [registry];
  return {
    depth: reuse(
      registry,
      'workqueue_depth',
      () => new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'], registers }),
    ),
    adds: reuse(
      registry,
      'workqueue_adds_total',
      () =>
        new Counter({
          name: 'workqueue_adds_total',
          help: 'Total number of adds handled by workqueue',
          labelNames: ['name'],
          registers,
        }),
    ),
    queueDuration: reuse(
      registry,
      'workqueue_queue_duration_seconds',
      () =>
        new Histogram({
          name: 'workqueue_queue_duration_seconds',
          help: 'How long in seconds an item stays in workqueue before being requested',
          labelNames: ['name'],
          buckets,
          registers,
        }),
    ),
    workDuration: reuse(
      registry,
      'workqueue_work_duration_seconds',
      () =>
        new Histogram({
          name: 'workqueue_work_duration_seconds',
          help: 'How long in seconds processing an item from workqueue takes',
          labelNames: ['name'],
          buckets,
          registers,
        }),
    ),
    retries: reuse(
      registry,
      'workqueue_retries_total',
      () =>
        new Counter({
          name: 'workqueue_retries_total',
          help: 'Total number of retries handled by workqueue',
          labelNames: ['name'],
          registers,
        }),
    ),
    unfinishedWork: reuse(
      registry,
      'workqueue_unfinished_work_seconds',
      () =>
        new Gauge({
          name: 'workqueue_unfinished_work_seconds',
          help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
          labelNames: ['name'],
          registers,
        }),
    ),
    longestRunning: reuse(
      registry,
      'workqueue_longest_running_processor_seconds',
      () =>
        new Gauge({
          name: 'workqueue_longest_running_processor_seconds',
          help: 'How many seconds has the longest running processor for workqueue been running',
          labelNames: ['name'],
          registers,
        }),
    ),
    reconcileTotal: reuse(
      registry,
      'controller_runtime_reconcile_total',
      () =>
        new Counter({
          name: 'controller_runtime_reconcile_total',
          help: 'Total number of reconciliations per controller',
          labelNames: ['controller', 'result'],
          registers,
        }),
    ),
    reconcileErrors: reuse(
      registry,
      'controller_runtime_reconcile_errors_total',
      () =>
        new Counter({
          name: 'controller_runtime_reconcile_errors_total',
          help: 'Total number of reconciliation errors per controller',
          labelNames: ['controller'],
          registers,
        }),
    ),
    reconcileTime: reuse(
      registry,
      'controller_runtime_reconcile_time_seconds',
      () =>
        new Histogram({
          name: 'controller_runtime_reconcile_time_seconds',
          help: 'Length of time per reconciliation per controller',
          labelNames: ['controller'],
          buckets,
          registers,
        }),
    ),
    maxConcurrent: reuse(
      registry,
      'controller_runtime_max_concurrent_reconciles',
      () =>
        new Gauge({
          name: 'controller_runtime_max_concurrent_reconciles',
          help: 'Maximum number of concurrent reconciles per controller',
          labelNames: ['controller'],
          registers,
        }),
    ),
    activeWorkers: reuse(
      registry,
      'controller_runtime_active_workers',
      () =>
        new Gauge({
          name: 'controller_runtime_active_workers',
          help: 'Number of currently used workers per controller',
          labelNames: ['controller'],
          registers,
        }),
    ),
  };
}
