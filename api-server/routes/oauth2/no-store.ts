import type { FastifyReply } from 'fastify';

/** RFC 6749 §5.1: token responses are never cached. */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}
