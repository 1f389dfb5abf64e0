import type { FastifyReply } from 'fastify';
import { ClientAuthenticationError } from '../../../core/auth/clients/authenticate.ts';
import { OAuthError } from '../../../core/auth/errors.ts';
import { HttpError } from '../../errors.ts';

/** An OAuth error of the logic as the catalogue's HTTP error; invalid_client with the challenge 401 needs. */
export function asHttpError(err: unknown): unknown {
  if (err instanceof ClientAuthenticationError)
    return new HttpError('invalid_client', err.message, [], {
      headers: { 'www-authenticate': 'Basic realm="oauth2"' },
    });
  if (err instanceof OAuthError) return new HttpError(err.code, err.message);
  return err;
}

/** RFC 6749 §5.1: token responses are never cached. */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}
