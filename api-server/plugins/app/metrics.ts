import fp from 'fastify-plugin';
import { RequestDurations } from './request-durations.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Records one answered request in `http_request_duration_seconds`, for requests answered past fastify. */
    observeRequest(method: string, route: string, statusCode: number, seconds: number): void;
  }
}

/** HTTP request metrics on the shared registry, and `/metrics` to scrape it (operator metrics included). */
export const metricsPlugin = fp(
  async (app) => {
    const { registry } = app.stratus;
    const durations = RequestDurations.on(registry);
    const observe = (method: string, route: string, statusCode: number, seconds: number) =>
      durations.observe(method, route, statusCode, seconds);
    app.decorate('observeRequest', observe);
    // A callback hook, not an async one: no promise on every answer.
    app.addHook('onResponse', (request, reply, done) => {
      observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
    app.get('/metrics', { schema: { hide: true }, config: { access: 'public' } }, async (_request, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    });
  },
  { name: 'stratus-metrics', dependencies: ['stratus-context'] },
);
