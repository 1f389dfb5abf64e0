import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../../errors.ts';
import type { Caller } from './caller.ts';

export const REALM = 'Stratus';

/** The authority of a superuser (DESIGN.md §5): every other authority with it. */
export const SUPERUSER = 'ALL';

export function basicChallenge(message: string): HttpError {
  return new HttpError('Unauthorized', message, [], {
    headers: { 'www-authenticate': `Basic realm="${REALM}", charset="UTF-8"` },
  });
}

/** Whether the caller holds `authority` (a superuser holds every one). */
export function holds(caller: Caller, authority: string): boolean {
  return caller.authenticated && (caller.authorities.includes(SUPERUSER) || caller.authorities.includes(authority));
}

/**
 * The check of a route that needs an authenticated user with an authority (DESIGN.md §5): 401 with a challenge
 * for an anonymous caller, who may yet sign in; 403 for a user who lacks it. `undefined` asks only that the
 * caller be signed in.
 */
export function requireAuthority(
  request: FastifyRequest,
  authority?: string,
): Extract<Caller, { authenticated: true }> {
  const { caller } = request;
  if (!caller.authenticated) throw basicChallenge('This request needs an authenticated user.');
  if (authority !== undefined && !holds(caller, authority))
    throw new HttpError('Forbidden', `This request needs the authority ${authority}.`);
  return caller;
}
