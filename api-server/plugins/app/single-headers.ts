import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';
import { HttpError } from '../../errors.ts';

/**
 * Header fields a request may carry once. RFC 9112 §3.2 makes a repeated Host a 400; Node keeps the first of a
 * repeated Host, Authorization or Content-Type and drops the others silently, so that a proxy in front, reading
 * another of them, would route, authenticate or parse the request unlike this server. Node's parser itself
 * refuses a repeated Content-Length, and joins the list fields (Accept, Cookie, ...), whose repeats are allowed.
 */
const SINGLE_HEADERS: ReadonlySet<string> = new Set(['host', 'authorization', 'proxy-authorization', 'content-type']);

/** The first header field the request repeats that it may carry once only, in lower case; undefined when none. */
export function repeatedSingleHeader(request: IncomingMessage): string | undefined {
  const raw = request.rawHeaders;
  let seen: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!SINGLE_HEADERS.has(name)) continue;
    if (seen?.includes(name)) return name;
    (seen ??= []).push(name);
  }
  return undefined;
}

/** Refuses a request that repeats a single header with 400, before any route, and closes its connection. */
export const singleHeadersPlugin = fp(
  async (app) => {
    app.addHook('onRequest', (request, reply, done) => {
      const repeated = repeatedSingleHeader(request.raw);
      if (!repeated) return done();
      // The request is ambiguous, so its framing may be too: nothing more is read from this connection.
      reply.header('connection', 'close');
      done(new HttpError('BadRequest', `The request carries the header ${repeated} more than once.`));
    });
  },
  { name: 'stratus-single-headers', fastify: '5.x' },
);
