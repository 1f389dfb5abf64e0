import fp from 'fastify-plugin';
import { Histogram } from 'prom-client';

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
    const duration =
      (registry.getSingleMetric('http_request_duration_seconds') as Histogram<string> | undefined) ??
      new Histogram({
        name: 'http_request_duration_seconds',
        help: 'Duration of HTTP requests in seconds, by method, route pattern and status code.',
        labelNames: ['method', 'route', 'status_code'],
        buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
      });
    const observe = (method: string, route: string, statusCode: number, seconds: number) =>
      duration.observe({ method, route, status_code: String(statusCode) }, seconds);
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
