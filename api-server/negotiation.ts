import type { FastifyReply, FastifyRequest } from 'fastify';
import { pagePolicy } from './views/html.ts';

/** Which representation an HTML-capable endpoint answers with (spec 1, content negotiation). */
export type Representation = 'json' | 'html';

interface MediaRange {
  type: string;
  q: number;
  order: number;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .split(',')
    .map((part, order) => {
      const [type, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const quality = q ? Number(q.slice(2)) : 1;
      return { type: type!.trim().toLowerCase(), q: Number.isFinite(quality) ? quality : 0, order };
    })
    .filter((r) => r.type !== '');
}

/** The quality the Accept header gives a media type: the most specific matching range wins, as in RFC 9110. */
function qualityOf(ranges: MediaRange[], mediaType: string): { q: number; order: number } {
  const [type] = mediaType.split('/');
  const candidates = [
    ranges.find((r) => r.type === mediaType),
    ranges.find((r) => r.type === `${type}/*`),
    ranges.find((r) => r.type === '*/*'),
  ];
  const match = candidates.find((r) => r !== undefined);
  return match ? { q: match.q, order: match.order } : { q: 0, order: Infinity };
}

/**
 * `f=html|json` decides outright; otherwise HTML only when Accept ranks text/html above application/json
 * (a tie goes to whichever the client listed first; no Accept at all means JSON).
 */
export function negotiate(accept: string | undefined, f: string | undefined): Representation {
  if (f === 'html' || f === 'json') return f;
  if (!accept) return 'json';
  const ranges = parseAccept(accept);
  const html = qualityOf(ranges, 'text/html');
  const json = qualityOf(ranges, 'application/json');
  if (html.q === 0) return 'json';
  if (html.q !== json.q) return html.q > json.q ? 'html' : 'json';
  return html.order < json.order ? 'html' : 'json';
}

/**
 * Sends a rendered page. Routes type their replies by their JSON response schemas; a page is the other
 * representation of the same resource, sent as a string, which fastify writes without serializing.
 */
export function sendHtml(reply: FastifyReply, page: string): FastifyReply {
  return reply.type('text/html; charset=utf-8').send(page);
}

/**
 * The answer of a route that has both representations: the page `render` gives when the client asks for HTML,
 * else the JSON, the page with its Content-Security-Policy (`imageOrigins`: where else its images may come from, a
 * configured basemap). Such routes say so with `produces` (see `plugins/app/html-pages.ts`, which adds `Vary: Accept`).
 */
export function represent<T>(
  request: Pick<FastifyRequest<{ Querystring: { f?: 'html' | 'json' } }>, 'headers' | 'query'>,
  reply: FastifyReply,
  json: T,
  render: () => string,
  imageOrigins: string[] = [],
): T | FastifyReply {
  return negotiate(request.headers.accept, request.query.f) === 'html' ? sendPage(reply, render(), imageOrigins) : json;
}

/** Sends a page of `views/` with its Content-Security-Policy (`views/html.ts` `pagePolicy`). */
export function sendPage(reply: FastifyReply, page: string, imageOrigins: string[] = []): FastifyReply {
  return sendHtml(reply.header('content-security-policy', pagePolicy(imageOrigins)), page);
}

/**
 * The media type of `offered` that Accept ranks highest (a tie goes to whichever the client listed first); the first
 * offered when there is no Accept or it accepts none of them.
 */
export function preferredMediaType<T extends string>(accept: string | undefined, offered: readonly [T, ...T[]]): T {
  if (!accept) return offered[0];
  const ranges = parseAccept(accept);
  const ranked = offered
    .map((type, i) => ({ type, i, ...qualityOf(ranges, type) }))
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order || a.i - b.i);
  return ranked[0]?.type ?? offered[0];
}
