import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/** Version of the interface description (spec 1), distinct from the application version. */
export const API_DESCRIPTION_VERSION = '0.1.0';

/**
 * The OpenAPI 3.1 description, generated from the routes' zod schemas (components come from the schemas' ids),
 * at `/openapi.json`, and Swagger UI at `/docs` with its assets served from the package, so it works offline.
 * Registered before the routes so that it sees every one of them.
 */
export const openApiPlugin = fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Stratus climate data API',
          version: API_DESCRIPTION_VERSION,
          description: 'Managed climate datasets, catalogue, processing, exports and identity of a Stratus instance.',
        },
      },
      transform: jsonSchemaTransform,
      transformObject: jsonSchemaTransformObject,
    });
    await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'stratus-openapi' },
);
