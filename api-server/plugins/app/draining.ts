import fp from 'fastify-plugin';
import { HttpError } from '../../errors.ts';

/**
 * Once the server is closing (`server.ts` stops it on SIGTERM), a request that still arrives on a connection
 * opened before is refused with 503 `ServiceUnavailable` in the catalogue's body, and fastify closes the connection
 * after the answer: the responses in flight finish, nothing new starts, and probes (`/readyz`, `/health`) read
 * not-ready. fastify's own 503 of a closing server (`return503OnClosing`, off in `app.ts`) has a body of its own.
 */
export const drainingPlugin = fp(
  async (app) => {
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onRequest', async () => {
      if (closing) throw new HttpError('ServiceUnavailable', 'The server is shutting down: send the request again.');
    });
  },
  { name: 'stratus-draining', fastify: '5.x', dependencies: ['stratus-errors'] },
);
