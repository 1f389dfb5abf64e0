import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../../errors.ts';
import type { Caller } from './caller.ts';

export const REALM = 'Stratus';

/**
 * The authorities a route may need (DESIGN.md §5), one list for the routes, the access check and the docs. A
 * superuser (`ALL`) holds every one.
 */
export const AUTHORITIES = {
  ALL: 'Superuser: every authority, and the routes only a superuser may call (system settings, the records of the authorization server, tracker metadata).',
  F_OAUTH2_CLIENT_MANAGE: 'Create, change and delete OAuth2 clients (`/api/oAuth2Clients`).',
  F_DATASET_MANAGE: 'Start ingestions and syncs, cancel them, refresh feature collections, remove dataset versions.',
  F_JOB_MANAGE: 'openEO processing: synchronous `/result`, batch jobs, user-defined processes.',
  F_EXPORT_DELIVER: 'Start deliveries of exports.',
} as const;

export type Authority = keyof typeof AUTHORITIES;

export const SUPERUSER: Authority = 'ALL';

/**
 * Who may call a route once authentication is configured: anyone (`public`: the route reads credentials itself,
 * or must answer before sign-in), any signed-in user, or a user with an authority.
 */
export type Access = 'public' | 'signed-in' | Authority;

export function basicChallenge(message: string): HttpError {
  return new HttpError('Unauthorized', message, [], {
    headers: { 'www-authenticate': `Basic realm="${REALM}", charset="UTF-8"` },
  });
}

/** Whole seconds of a throttle's wait, as `Retry-After` gives them: rounded up, so a client that waits is admitted. */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}

/** A password sign-in the throttle refused for now (docs/authorization.md#throttling-of-failed-sign-ins). */
export function signInThrottled(waitMs: number): HttpError {
  const seconds = retryAfterSeconds(waitMs);
  return new HttpError(
    'TooManyRequests',
    `Too many failed sign-ins from this address or for this account; try again in ${seconds} s.`,
    [],
    { headers: { 'retry-after': String(seconds) } },
  );
}

/** Whether the caller holds `authority` (a superuser holds every one). */
export function holds(caller: Caller, authority: Authority): boolean {
  return caller.authenticated && (caller.authorities.includes(SUPERUSER) || caller.authorities.includes(authority));
}

/**
 * The check of a route that needs an authenticated user with an authority (DESIGN.md §5): 401 with a challenge
 * for an anonymous caller, who may yet sign in; 403 for a user who lacks it. `undefined` asks only that the
 * caller be signed in.
 */
export function requireAuthority(
  request: FastifyRequest,
  authority?: Authority,
): Extract<Caller, { authenticated: true }> {
  const { caller } = request;
  if (!caller.authenticated) throw basicChallenge('This request needs an authenticated user.');
  if (authority !== undefined && !holds(caller, authority))
    throw new HttpError('Forbidden', `This request needs the authority ${authority}.`);
  return caller;
}
