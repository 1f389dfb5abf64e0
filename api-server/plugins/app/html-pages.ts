import type { preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';

const varyByAccept: preHandlerAsyncHookHandler = async (_request, reply) => {
  reply.header('vary', 'Accept');
};

/**
 * A route that also answers HTML (its schema's `produces` lists `text/html`) varies by Accept, so that a cache
 * never hands a browser's page to a JSON client or the reverse; the header is set before the handler runs, so its
 * errors carry it too. Registered before the route areas, to see them all.
 */
export const htmlPagesPlugin = fp(
  async (app) => {
    app.addHook('onRoute', (route) => {
      if (!(route.schema as { produces?: string[] } | undefined)?.produces?.includes('text/html')) return;
      route.preHandler = [varyByAccept, ...[route.preHandler ?? []].flat()];
    });
  },
  { name: 'stratus-html-pages', fastify: '5.x' },
);
