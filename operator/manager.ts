import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Cluster } from '../core/cluster/port.ts';
import { dataSourceController } from './controllers/data-source/controller.ts';
import { datasetController } from './controllers/dataset/controller.ts';
import { Controller, type ControllerDefinition, type ControllerOptions } from './runtime/controller.ts';
import { controllerMetrics } from './runtime/metrics.ts';

export interface OperatorOptions {
  cluster: Cluster;
  registry: Registry;
  logger: Logger;
  namespace?: string;
  resyncMs?: number;
  workers?: number;
}

export interface RunningOperator {
  controllers: Controller[];
  stop(): Promise<void>;
}

/** Every controller of the operator; one line each. */
export const controllerDefinitions = [dataSourceController, datasetController] as ControllerDefinition[];

export function startOperator(options: OperatorOptions): RunningOperator {
  const shared: ControllerOptions = {
    cluster: options.cluster,
    metrics: controllerMetrics(options.registry),
    logger: options.logger,
    namespace: options.namespace,
    resyncMs: options.resyncMs,
    workers: options.workers,
  };
  const controllers = controllerDefinitions.map((definition) => new Controller(definition, shared));
  for (const controller of controllers) controller.start();
  return {
    controllers,
    stop: async () => {
      await Promise.all(controllers.map((c) => c.stop()));
    },
  };
}
