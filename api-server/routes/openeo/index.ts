import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../../errors.ts';
import { authenticationErrorSchema, describeCaller } from '../../plugins/app/authentication/me.ts';
import { negotiate, represent, sendHtml } from '../../negotiation.ts';
import { HTML_PAGE_LIMIT, pageQuerySchema, paginate } from '../../pagination.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { commonErrorResponses, formatQuerySchema } from '../../schemas.ts';
import { compiledSerializer } from '../../serialization.ts';
import { freeForm, openeoErrorSchema } from './schemas.ts';
import { byId, findCollection, publishedCollections } from '../../services/catalogue/collection-kinds.ts';
import { JSON_TYPE, type StacCollection } from '../../services/catalogue/stac.ts';
import { CONFORMS_TO } from '../../services/catalogue/conformance.ts';
import { credentialRoutes } from './credentials.ts';
import { fileFormats } from './file-formats.ts';
import { collectionListPage, collectionPage, processListPage, processPage } from './pages.ts';
import type { ProcessDescription } from './process-catalogue.ts';
import { markOpenEoRoutes } from '../../plugins/app/errors.ts';

const tags = ['openEO discovery'];

export const collectionListSchema = freeForm('Collections', 'openEO and STAC API collection list.');

export interface OpenEoRoutesOptions {
  /** The official descriptions of the implemented processes, by id. */
  processes: Map<string, ProcessDescription>;
}

/**
 * openEO discovery for an anonymous backend: conformance, credentials, file formats, service types, the account,
 * collections (openEO and STAC at once) and the process catalogue. The capabilities document is the root
 * (routes/system). Errors of these routes use openEO's body and codes.
 */
export const openEoRoutes: FastifyPluginAsyncZod<OpenEoRoutesOptions> = async (app, { processes }) => {
  markOpenEoRoutes(app);
  const { config } = app.stratus;
  const kinds = app.collectionKinds;
  const base = (request: FastifyRequest) => publicBaseUrl(request, config.server.baseUrl);

  app.get(
    '/conformance',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Conformance classes',
        tags,
        response: { 200: freeForm('Conformance', 'openEO and OGC API conformance classes.') },
      },
    },
    async () => ({
      conformsTo: CONFORMS_TO,
    }),
  );

  credentialRoutes(app, tags);

  app.get(
    '/file_formats',
    {
      schema: {
        summary: 'Supported file formats',
        tags,
        response: {
          200: freeForm(
            'FileFormats',
            "Input and output file formats by GDAL name; an output format's `parameters` are the `save_result` options it takes (chap-csv: `period_type`, `continuity`).",
          ),
        },
      },
    },
    async () => fileFormats(),
  );

  app.get(
    '/service_types',
    {
      schema: {
        summary: 'Secondary web service types',
        tags,
        response: { 200: freeForm('ServiceTypes', 'None are offered.') },
      },
    },
    async () => ({}),
  );

  app.get(
    '/me',
    {
      config: { access: 'public' },
      schema: {
        summary: 'The account of the caller',
        description:
          'The authenticated caller (HTTP basic, session or bearer token), else the anonymous user; no budget and ' +
          'no storage limit (openEO sets both to null then). Credentials that are sent but refused: 401.',
        tags,
        response: { 200: freeForm('UserData', "openEO's user data of the caller."), 401: authenticationErrorSchema },
      },
    },
    async (request) => ({
      ...describeCaller(request),
      budget: null,
      storage: null,
      links: [{ href: `${base(request)}/`, rel: 'about', type: JSON_TYPE, title: 'Capabilities' }],
    }),
  );

  const collectionLinks = (url: string, id: string) => ({
    base: url,
    self: `${url}/collections/${id}`,
    root: `${url}/`,
    parent: `${url}/collections`,
  });

  app.get(
    '/collections',
    {
      serializerCompiler: compiledSerializer,
      schema: {
        summary: 'Published collections',
        description:
          'The published collections by id, as openEO and STAC API collections (same documents as `/stac`). ' +
          'Paginated with `limit` and `token` (docs/pagination.md): without `limit`, the JSON holds every ' +
          `collection and the HTML page ${HTML_PAGE_LIMIT}.`,
        tags,
        querystring: formatQuerySchema.extend(pageQuerySchema.shape),
        produces: ['application/json', 'text/html'],
        response: {
          200: collectionListSchema,
          400: openeoErrorSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const url = base(request);
      const representation = negotiate(request.headers.accept, request.query.f);
      const page = paginate(request, await publishedCollections(kinds), byId, {
        baseUrl: config.server.baseUrl,
        invalid: 'PaginationInvalid',
        representation,
      });
      const found = await Promise.all(page.items.map((c) => findCollection(kinds, c.id, collectionLinks(url, c.id))));
      // A collection unpublished between the two reads is left out rather than listed empty.
      const collections = found.filter((c): c is StacCollection => c !== undefined);
      if (representation === 'html')
        return sendHtml(reply, collectionListPage(config.instance.name, collections, page.links));
      return {
        collections,
        links: [
          { href: `${url}/collections`, rel: 'self', type: JSON_TYPE },
          { href: `${url}/`, rel: 'root', type: JSON_TYPE },
          ...page.links,
        ],
      };
    },
  );

  app.get(
    '/collections/:collection_id',
    {
      schema: {
        summary: 'One published collection',
        description:
          'The collection as openEO and STAC (same document as `/stac/collections/{id}`). A versioned dataset ' +
          'carries the STAC Version extension: `version` (the served one), `summaries.version` (the retained ' +
          'version ids, newest first) and `latest-version`, `predecessor-version` and `version-history` links. ' +
          '`load_collection` reads another retained version through a `version` property filter (docs/processing.md).',
        tags,
        params: z.object({ collection_id: z.string() }),
        querystring: formatQuerySchema,
        produces: ['application/json', 'text/html'],
        response: {
          200: freeForm('Collection', 'An openEO and STAC collection.'),
          404: openeoErrorSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const id = request.params.collection_id;
      const collection = await findCollection(kinds, id, collectionLinks(base(request), id));
      if (!collection) throw new HttpError('CollectionNotFound', `Collection '${id}' does not exist.`);
      return represent(request, reply, collection, () => collectionPage(config.instance.name, collection));
    },
  );

  app.get(
    '/processes',
    {
      schema: {
        summary: 'Processes this backend runs',
        description:
          'The official openEO descriptions of the processes the engine implements, and only those, with ' +
          "Stratus's own (`load_features`, and the predefined workflows `aggregate_to_chap_csv` and " +
          '`aggregate_to_dhis2_json`; docs/processing.md).',
        tags,
        querystring: formatQuerySchema,
        produces: ['application/json', 'text/html'],
        response: { 200: freeForm('Processes', 'openEO process list.'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const list = [...processes.values()];
      return represent(
        request,
        reply,
        { processes: list, links: [{ href: `${base(request)}/processes`, rel: 'self', type: JSON_TYPE }] },
        () => processListPage(config.instance.name, list),
      );
    },
  );

  app.get(
    '/processes/:process_id',
    {
      schema: {
        summary: 'One process',
        tags,
        params: z.object({ process_id: z.string() }),
        querystring: formatQuerySchema,
        produces: ['application/json', 'text/html'],
        response: {
          200: freeForm('Process', 'An official openEO process description.'),
          404: openeoErrorSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const process = processes.get(request.params.process_id);
      if (!process)
        throw new HttpError('ProcessNotFound', `Process '${request.params.process_id}' is not implemented here.`);
      return represent(request, reply, process, () => processPage(config.instance.name, process));
    },
  );
};
