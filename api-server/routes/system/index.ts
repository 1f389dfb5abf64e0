import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { negotiate, sendPage } from '../../negotiation.ts';
import { requireReader } from '../../plugins/app/authentication/access.ts';
import { commonErrorResponses, errorDetailSchema, formatQuerySchema } from '../../schemas.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { CONFORMS_TO, OPENEO_API_VERSION } from '../../services/catalogue/conformance.ts';
import { STAC_VERSION } from '../../services/catalogue/stac.ts';
import { homeOverview } from './home.ts';
import { landingPage } from './landing-page.ts';
import {
  appInfoSchema,
  extentRecordSchema,
  healthStatusSchema,
  rootResponseSchema,
  wellKnownSchema,
} from './schemas.ts';
import { listIcechunkObjects, listObjectsQuerySchema } from '../../services/icechunk/repositories.ts';

/** Where the root leads, as `[href, rel, title]`. */
const ROOT_LINKS = (
  [
    ['/datasets', 'data', 'Managed datasets'],
    ['/collections', 'data', 'Published collections (openEO, STAC API)'],
    ['/stac/catalog.json', 'child', 'STAC catalogue'],
    ['/data-sources', 'related', 'Data sources'],
    ['/processes', 'related', 'openEO processes'],
    ['/conformance', 'conformance', 'Conformance classes'],
    ['/extent', 'related', 'Instance extent'],
    ['/health', 'status', 'Health'],
    ['/info', 'about', 'Application info'],
    ['/openapi.json', 'service-desc', 'OpenAPI description'],
    ['/docs', 'service-doc', 'Interactive API documentation'],
    ['/.well-known/eo', 'version-history', 'openEO API versions'],
  ] as const
).map(([href, rel, title]) => ({ href, rel, title }));

/** System and discovery routes of spec 1: root, health, info, extent and the openEO well-known document. */
export const systemRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config, version } = app.stratus;

  app.get(
    '/',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Landing page and openEO capabilities',
        tags: ['System'],
        description:
          'The root is also the openEO base URL. As HTML (`Accept: text/html` first, or `f=html`) it is the home ' +
          'page: the datasets with their coverage, last update and thumbnail, the latest runs, the published ' +
          'feature collections, whether the caller is signed in, and client snippets with the public URL. ' +
          'With `list-type=2` it answers an S3 ListObjectsV2 request over ' +
          'the Icechunk repositories served at `/icechunk/` (XML), which is how Icechunk clients list objects.',
        querystring: formatQuerySchema.extend(listObjectsQuerySchema.shape),
        produces: ['application/json', 'text/html', 'application/xml'],
        response: {
          200: z.union([rootResponseSchema, z.string()]),
          404: errorDetailSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      if (request.query['list-type'] !== undefined) {
        requireReader(request, config);
        return reply.type('application/xml').send(await listIcechunkObjects(app.stratus, request.query));
      }
      // The page reads lists the JSON does not need: only when a browser asks for it.
      if (negotiate(request.headers.accept, request.query.f) === 'html')
        return sendPage(reply, landingPage(config, await homeOverview(app, request)));
      return {
        message: `${config.instance.name}: climate data API`,
        links: ROOT_LINKS,
        api_version: OPENEO_API_VERSION,
        backend_version: version.app,
        stac_version: STAC_VERSION,
        type: 'Catalog' as const,
        id: 'stratus',
        title: config.instance.name,
        description: config.instance.description ?? 'Climate and earth-observation data for one country or region.',
        endpoints: app.endpoints,
        conformsTo: CONFORMS_TO,
      };
    },
  );

  const wellKnown = {
    config: { access: 'public' as const },
    schema: { summary: 'openEO API versions', tags: ['System'], response: { 200: wellKnownSchema } },
  };
  const versions = async (request: FastifyRequest) => ({
    versions: [
      { url: `${publicBaseUrl(request, config.server.baseUrl)}/`, production: false, api_version: OPENEO_API_VERSION },
    ],
  });
  app.get('/.well-known/eo', wellKnown, versions);
  app.get('/.well-known/openeo', wellKnown, versions);

  // Probes and load balancers call /health often; one store round trip per second answers them all.
  let probe:
    { at: number; result: Promise<{ status: 'healthy' | 'degraded'; details?: Record<string, string> }> } | undefined;
  const checkStore = async (log: { warn(o: object, m: string): void }) => {
    try {
      await app.stratus.cluster.list(datasetKind, { namespace: app.stratus.namespace });
      return { status: 'healthy' as const };
    } catch (err) {
      log.warn({ err }, 'health: resource store unavailable');
      const message = err instanceof Error ? err.message : String(err);
      return { status: 'degraded' as const, details: { resources: `resource store unavailable: ${message}` } };
    }
  };

  app.get(
    '/health',
    {
      config: { access: 'public' },
      schema: { summary: 'Health', tags: ['System'], response: { 200: healthStatusSchema } },
    },
    async (request) => {
      const now = Date.now();
      if (!probe || now - probe.at >= app.stratus.healthCacheMs) probe = { at: now, result: checkStore(request.log) };
      return probe.result;
    },
  );

  // The chart's probes: the process answers (liveness), and it takes requests (readiness; while the server
  // drains, `plugins/app/draining.ts` answers 503 before this route runs).
  const probeRoute = (summary: string) => ({
    config: { access: 'public' as const },
    schema: {
      summary,
      tags: ['System'],
      produces: ['text/plain'],
      // Every path answers 503 while the server shuts down; for a probe that is the answer that matters.
      response: { 200: z.string(), 503: errorDetailSchema },
    },
  });
  const ok = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.type('text/plain; charset=utf-8').send('ok\n');
  app.get('/healthz', probeRoute('Liveness probe'), ok);
  app.get('/readyz', probeRoute('Readiness probe: 503 while the server shuts down'), ok);

  app.get(
    '/info',
    { schema: { summary: 'Application info', tags: ['System'], response: { 200: appInfoSchema } } },
    async () => ({
      app_version: version.app,
      python_version: `node ${version.node}`,
      uvicorn_version: `fastify ${version.fastify}`,
      node_version: version.node,
      server: `fastify ${version.fastify}`,
      read_only: config.readOnly,
    }),
  );

  app.get(
    '/extent',
    { schema: { summary: 'Instance extent', tags: ['System'], response: { 200: extentRecordSchema } } },
    async () => ({ name: config.instance.name, description: config.instance.description, bbox: config.instance.bbox }),
  );
};
