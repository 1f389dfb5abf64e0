import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../../errors.ts';
import { commonErrorResponses, errorDetailSchema } from '../../schemas.ts';
import { ASSETS, ASSETS_VERSION } from '../../views/assets.ts';

/** A year: the URL names the build's assets, so a file under it never changes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The static files of the HTML pages (their stylesheet and scripts, Leaflet's build from npm): served from this
 * server, so no page fetches code from elsewhere. Public, like the sign-in page that uses the stylesheet.
 */
export const assetRoutes: FastifyPluginAsyncZod = async (app) => {
  app.route({
    method: ['GET', 'HEAD'],
    url: '/assets/:version/*',
    config: { access: 'public' },
    schema: {
      summary: "A static file of the HTML pages (script, stylesheet, Leaflet's images)",
      description:
        "Under the digest of this build's assets, which the pages link to; cached for a year (`immutable`). " +
        'Another digest or an unknown file is 404.',
      tags: ['Pages'],
      params: z.object({ version: z.string(), '*': z.string() }),
      produces: ['text/javascript', 'text/css', 'image/png'],
      response: { 200: z.any(), 304: z.null(), 404: errorDetailSchema, ...commonErrorResponses },
    },
    handler: async (request, reply) => {
      const { version, '*': name } = request.params;
      const asset = version === ASSETS_VERSION ? ASSETS.get(name) : undefined;
      if (!asset) throw new HttpError('NotFound', `No asset ${name} in build ${version}`);
      const etag = `"${ASSETS_VERSION}"`;
      reply.header('cache-control', IMMUTABLE).header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send(null);
      return reply.type(asset.contentType).send(asset.bytes);
    },
  });
};
