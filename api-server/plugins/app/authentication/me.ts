import type { FastifyRequest } from 'fastify';
import { z } from 'zod';

/**
 * What a 401 of any route can be: a refused bearer token (RFC 6750) or refused basic credentials, which the
 * authentication plugin answers before the route runs.
 */
export const authenticationErrorSchema = z
  .union([z.object({ error: z.string(), error_description: z.string().optional() }), z.object({ detail: z.string() })])
  .meta({ id: 'AuthenticationError', description: 'Missing or refused credentials.' });

/**
 * openEO's `/me` (DESIGN.md §5: it describes the caller). An anonymous caller is described as the anonymous user,
 * with or without the authorization server: reads stay anonymous (DESIGN.md §5), so an openEO client that asks
 * before signing in keeps working.
 */
export function describeCaller(request: FastifyRequest): {
  user_id: string;
  name: string;
  email?: string;
  roles?: string[];
} {
  const { caller } = request;
  if (!caller.authenticated) return { user_id: 'anonymous', name: 'Anonymous user' };
  return {
    user_id: caller.username,
    name: caller.username,
    ...(caller.user.spec.email ? { email: caller.user.spec.email } : {}),
    roles: caller.authorities,
  };
}
