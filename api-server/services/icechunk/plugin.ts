import fp from 'fastify-plugin';
import { IcechunkSnapshots } from './icechunk-snapshots.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Read sessions and key bytes of Icechunk snapshots (`icechunk-snapshots.ts`). */
    icechunkSnapshots: IcechunkSnapshots;
  }
}

/** The snapshot reader that `/zarr` of Icechunk datasets and the catalogue's store grids share. */
export const icechunkSnapshotsPlugin = fp(
  async (app) => {
    app.decorate('icechunkSnapshots', new IcechunkSnapshots());
  },
  { name: 'stratus-icechunk-snapshots', fastify: '5.x' },
);
