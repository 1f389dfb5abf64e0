import fp from 'fastify-plugin';
import { HttpError } from '../../errors.ts';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Synchronous processing computes without storing anything, so a read-only instance still serves it. */
const ALLOWED_WRITES = new Set(['POST /result']);

/** Refuses every write route on a read-only instance, registered now or by later areas. */
export const readOnlyPlugin = fp(
  async (app) => {
    // The configuration is read once, at start: a read-write instance has no hook to run on each request.
    if (!app.stratus.config.readOnly) return;
    app.addHook('onRequest', async (request) => {
      // A write no route takes changes nothing: it gets the 404 or 405 a read-write instance answers.
      if (!WRITES.has(request.method) || request.is404) return;
      const path = request.url.split('?')[0];
      if (ALLOWED_WRITES.has(`${request.method} ${path}`)) return;
      // Signing in is no change of the data: the OAuth2 endpoints and the login page (routes that read their
      // own credentials) work on a read-only instance too.
      if (request.routeOptions.config?.authentication === false) return;
      throw new HttpError('ReadOnly', `This instance is read-only: ${request.method} ${path} is refused.`);
    });
  },
  { name: 'stratus-read-only', dependencies: ['stratus-context'] },
);
