import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { SECURITY_SCHEMES } from '../app/authentication/access.ts';

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
          description:
            'Managed climate datasets, catalogue, processing, exports and identity of a Stratus instance. ' +
            '`x-stratus-access` says who may call an operation once authentication is configured: `public`, ' +
            '`anonymous-read` (anyone reads unless `security.anonymous_read = off`), `signed-in`, or the authority ' +
            'a user needs (docs/authorization.md); without authentication the instance is open.',
        },
        components: { securitySchemes: SECURITY_SCHEMES },
      },
      transform: jsonSchemaTransform,
      transformObject: jsonSchemaTransformObject,
    });
    await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
    app.get('/openapi.json', { schema: { hide: true }, config: { access: 'public' } }, async () => app.swagger());
  },
  { name: 'stratus-openapi' },
);
