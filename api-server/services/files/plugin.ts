import fp from 'fastify-plugin';
import { ImmutableFileCache } from './file-cache.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The one cache of immutable store files (`file-cache.ts`). */
    files: ImmutableFileCache;
  }
}

/** The file cache every route that serves store files shares, and the `/zarr` keys with them. */
export const filesPlugin = fp(
  async (app) => {
    app.decorate('files', new ImmutableFileCache());
  },
  { name: 'stratus-files', fastify: '5.x' },
);
