import fp from 'fastify-plugin';
import { collectionKinds, type CollectionKind } from './collection-kinds.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every kind of catalogue collection, which the STAC catalogue and openEO's `/collections` share. */
    collectionKinds: CollectionKind[];
  }
}

export const cataloguePlugin = fp(
  async (app) => {
    app.decorate(
      'collectionKinds',
      collectionKinds({ ...app.stratus, icechunk: app.icechunkSnapshots, caches: app.resourceCaches }),
    );
  },
  {
    name: 'stratus-catalogue',
    fastify: '5.x',
    dependencies: ['stratus-context', 'stratus-icechunk-snapshots', 'stratus-resource-caches'],
  },
);
