import fp from 'fastify-plugin';
import type { Registry } from 'prom-client';
import type { Cluster } from '../../../core/cluster/port.ts';
import type { InstanceConfig } from '../../../core/config/index.ts';
import type { ImmutableFileCache } from '../../services/files/file-cache.ts';
import type { IcechunkSnapshots } from '../../services/icechunk/icechunk-snapshots.ts';

export interface VersionInfo {
  app: string;
  node: string;
  fastify: string;
}

export interface StratusContext {
  cluster: Cluster;
  config: InstanceConfig;
  registry: Registry;
  version: VersionInfo;
  /** Namespace the API server reads resources from. */
  namespace: string;
  /** Root of the mounted stores (datasets/<id>/versions/<version>/...). */
  storageRoot: string;
  /** Store files in memory: versions never change once published (see routes/stores/file-cache.ts). */
  files: ImmutableFileCache;
  /** Read sessions and key bytes of Icechunk snapshots, which never change either. */
  icechunk: IcechunkSnapshots;
  /** How long one health probe of the resource store answers `/health`. */
  healthCacheMs: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    stratus: StratusContext;
  }
}

/** Shares the cluster port, configuration and metrics registry with every route. */
export const contextPlugin = fp<StratusContext>(
  async (app, context) => {
    app.decorate('stratus', context);
  },
  { name: 'stratus-context', fastify: '5.x' },
);
