import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../../errors.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { commonErrorResponses, errorDetailSchema, resourceIdSchema } from '../../schemas.ts';
import { findCollection, publishedCollections } from '../../services/catalogue/collection-kinds.ts';
import { JSON_TYPE, STAC_VERSION } from '../../services/catalogue/stac.ts';
import { stacDocumentSchema } from './schemas.ts';

/** The static STAC catalogue: one Catalog whose children are the published collections of every kind. */
export const stacRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config } = app.stratus;
  const kinds = app.collectionKinds;
  const base = (request: FastifyRequest) => publicBaseUrl(request, config.server.baseUrl);

  const catalog = async (request: FastifyRequest) => {
    const url = base(request);
    const children = await publishedCollections(kinds);
    return {
      type: 'Catalog',
      stac_version: STAC_VERSION,
      id: 'stratus',
      title: config.instance.name,
      description: config.instance.description ?? `Published datasets of ${config.instance.name}.`,
      links: [
        { href: `${url}/stac/catalog.json`, rel: 'self', type: JSON_TYPE },
        { href: `${url}/stac/catalog.json`, rel: 'root', type: JSON_TYPE, title: config.instance.name },
        ...children.map((c) => ({
          href: `${url}/stac/collections/${c.id}`,
          rel: 'child',
          type: JSON_TYPE,
          title: c.title,
        })),
      ],
    };
  };
  const catalogSchema = {
    schema: { summary: 'STAC catalogue', tags: ['Catalogue'], response: { 200: stacDocumentSchema } },
  };
  app.get('/stac', catalogSchema, catalog);
  app.get('/stac/catalog.json', catalogSchema, catalog);

  app.get(
    '/stac/collections/:dataset_id',
    {
      schema: {
        summary: 'One STAC collection',
        description:
          'A published dataset as a STAC Collection: raster datasets use the datacube extension and advertise ' +
          'their Zarr store as the `data` asset, and a `thumbnail` asset only while the file exists.',
        tags: ['Catalogue'],
        params: z.object({ dataset_id: resourceIdSchema }),
        response: { 200: stacDocumentSchema, 404: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      const url = base(request);
      const id = request.params.dataset_id;
      const collection = await findCollection(kinds, id, {
        base: url,
        self: `${url}/stac/collections/${id}`,
        root: `${url}/stac/catalog.json`,
        parent: `${url}/stac/catalog.json`,
      });
      if (!collection) throw new HttpError('NotFound', `No published collection ${id}`);
      return collection;
    },
  );
};
