import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { authorizationAdminRoutes } from './authorizations.ts';
import { systemSettingsRoutes } from './system-settings.ts';

/**
 * Administration of the authorization server (spec 2): its system settings and its stored authorizations and consents. Present only when
 * `oauth2.server.enabled = on` (404 otherwise, like the oauth2 routes). Every route, reads included, is the
 * superuser's (`config.access`, checked before the body is read): the stored authorizations say who uses which client, the settings decide who may enrol devices.
 */
export const authAdminRoutes: FastifyPluginAsyncZod = async (app) => {
  if (!app.authorizationServer) return;
  await app.register(systemSettingsRoutes);
  await app.register(authorizationAdminRoutes);
};
