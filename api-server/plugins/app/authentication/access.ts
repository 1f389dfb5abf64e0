import type { FastifyRequest, FastifySchema } from 'fastify';
import fp from 'fastify-plugin';
import { authenticationConfigured, type InstanceConfig } from '../../../../core/config/index.ts';
import { requireAuthority, type Access } from './authority.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route once authentication is configured; every write route says (DESIGN.md §5). */
    access?: Access;
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The security schemes of the OpenAPI description (openapi.ts), any one of which authenticates a caller. */
export const SECURITY_SCHEMES = {
  basicAuth: {
    type: 'http',
    scheme: 'basic',
    description:
      'A local user’s username and password. Failed sign-ins are throttled per account and client address: after five failures from one address the next attempt waits 1 s, doubling, answered 429 with `Retry-After` (docs/authorization.md, "Throttling of failed sign-ins").',
  },
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A JWT access token of this authorization server or of an external identity provider (openEO clients: `oidc/<provider id>/<token>`, the ids of /credentials/oidc).',
  },
  sessionCookie: { type: 'apiKey', in: 'cookie', name: 'stratus_session', description: 'The login page’s session.' },
} as const;
const CREDENTIALS = Object.keys(SECURITY_SCHEMES).map((scheme) => ({ [scheme]: [] }));

/** Whether anonymous callers may read (DESIGN.md §5): always without authentication, else per configuration. */
export function anonymousReads(config: Pick<InstanceConfig, 'oauth2' | 'oidc' | 'security'>): boolean {
  return !authenticationConfigured(config) || config.security.anonymousRead;
}

/** For a public route that also serves data (the root's Icechunk listing): the check every read gets. */
export function requireReader(request: FastifyRequest, config: InstanceConfig): void {
  if (!anonymousReads(config)) requireAuthority(request);
}

/**
 * Who may do what (DESIGN.md §5). With no authentication configured the instance is open, as spec 1 says. Once it
 * is, every write needs what its route names (`config.access`), and reads stay anonymous unless
 * `security.anonymous_read = off`, which leaves only the routes marked `public` (discovery, sign-in) open.
 * A write route that names nothing stops startup, so no write is ever open by omission.
 */
export const accessPlugin = fp(
  async (app) => {
    const { config } = app.stratus;
    const routeMethods = (method: string | string[]) => (Array.isArray(method) ? method : [method]);
    app.addHook('onRoute', (route) => {
      const declared = route.config?.access ?? (route.config?.authentication === false ? 'public' : undefined);
      const writes = routeMethods(route.method).some((m) => WRITES.has(m));
      if (declared === undefined && writes)
        throw new Error(`${String(route.method)} ${route.url} does not say who may call it (config.access)`);
      const access = declared ?? 'anonymous-read';
      // The OpenAPI description says it too: who may call, and how a caller authenticates.
      const described: FastifySchema & Record<string, unknown> = { ...route.schema, 'x-stratus-access': access };
      if (access !== 'public' && access !== 'anonymous-read') described.security = CREDENTIALS;
      route.schema = described;
    });
    if (!authenticationConfigured(config)) return;
    const anonymousRead = anonymousReads(config);
    // A callback hook, not an async one (no promise on every request); fastify answers what it throws.
    app.addHook('onRequest', (request, _reply, done) => {
      const options = request.routeOptions;
      const access = options.config?.access ?? (options.config?.authentication === false ? 'public' : undefined);
      // No route: the 404 and 405 answers give nothing away.
      if (options.url !== undefined && access !== 'public') {
        if (access === undefined || access === 'signed-in') {
          if (WRITES.has(request.method) || !anonymousRead || access === 'signed-in') requireAuthority(request);
        } else requireAuthority(request, access);
      }
      done();
    });
  },
  { name: 'stratus-access', dependencies: ['stratus-context', 'stratus-authentication'] },
);
