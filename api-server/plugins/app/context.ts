import fp from 'fastify-plugin';
import type { Registry } from 'prom-client';
import type { Cluster } from '../../../core/cluster/port.ts';
import type { InstanceConfig } from '../../../core/config/index.ts';

export interface VersionInfo {
  app: string;
  node: string;
  fastify: string;
}

/** What the instance is given at start; the services (`services/`) are built from it by their own plugins. */
export interface StratusContext {
  cluster: Cluster;
  config: InstanceConfig;
  registry: Registry;
  version: VersionInfo;
  /** Namespace the API server reads resources from. */
  namespace: string;
  /** Root of the mounted stores (datasets/<id>/versions/<version>/...). */
  storageRoot: string;
  /** How long one health probe of the resource store answers `/health`. */
  healthCacheMs: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    stratus: StratusContext;
  }
}

/** Shares the cluster port, configuration and metrics registry with every plugin, service and route. */
export const contextPlugin = fp<StratusContext>(
  async (app, context) => {
    app.decorate('stratus', context);
  },
  { name: 'stratus-context', fastify: '5.x' },
);
