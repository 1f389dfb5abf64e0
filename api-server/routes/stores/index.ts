import type { FastifyPluginAsync } from 'fastify';
import { icechunkRoutes } from './icechunk.ts';
import { zarrRoutes } from './zarr.ts';

/** The store servers: `/zarr/{id}/` for Zarr clients, `/icechunk/{id}/` for Icechunk clients. */
export const storeRoutes: FastifyPluginAsync = async (app) => {
  await app.register(zarrRoutes);
  await app.register(icechunkRoutes);
};
