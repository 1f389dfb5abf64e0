import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { acceptForms } from '../../plugins/app/authentication/forms.ts';
import { authorizeRoutes } from './authorize.ts';
import { discoveryRoutes } from './discovery.ts';
import { registrationRoutes } from './registration.ts';
import { tokenRoutes } from './token.ts';
import { userinfoRoutes } from './userinfo.ts';

/**
 * The authorization server's endpoints (spec 2), present only when `oauth2.server.enabled = on`; otherwise these
 * paths answer 404 like any unknown path.
 */
export const oauth2Routes: FastifyPluginAsyncZod = async (app) => {
  const auth = app.authorizationServer;
  if (!auth) return;
  acceptForms(app);
  await app.register(discoveryRoutes(auth));
  await app.register(authorizeRoutes(auth));
  await app.register(tokenRoutes(auth));
  await app.register(userinfoRoutes(auth));
  await app.register(registrationRoutes(auth));
};
