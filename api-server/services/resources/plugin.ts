import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { Cluster } from '../../../core/cluster/port.ts';
import { ResourceCaches } from './resource-caches.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Informer caches of the listed kinds, and the cluster port writes go through (`resource-caches.ts`). */
    resourceCaches: ResourceCaches;
  }
}

/**
 * Registered before the context, whose cluster port is `resourceCaches.cluster`: every write of the API server then
 * reaches the caches, and a list after it sees it. The informers stop when the application closes.
 */
export const resourceCachesPlugin = fp<{ cluster: Cluster; namespace: string }>(
  async (app, { cluster, namespace }) => {
    const caches = new ResourceCaches({ cluster, namespace, logger: app.log as Logger });
    app.decorate('resourceCaches', caches);
    app.addHook('onClose', () => caches.stop());
  },
  { name: 'stratus-resource-caches', fastify: '5.x' },
);
