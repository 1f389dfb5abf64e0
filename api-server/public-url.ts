import type { FastifyRequest } from 'fastify';

type RequestLike = Pick<FastifyRequest, 'headers' | 'protocol' | 'host'>;

/** The first value of a header that proxies may repeat or join with commas (the client-side proxy comes first). */
function firstHeader(request: RequestLike, name: string): string | undefined {
  const raw = request.headers[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.split(',')[0]?.trim();
  return value === '' ? undefined : value;
}

/**
 * The URL clients reach this instance under, without a trailing slash. `server.base.url` wins when configured;
 * otherwise the reverse proxy's `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-Prefix` are honoured,
 * so catalogue links stay absolute and correct behind an ingress that mounts the API under a path.
 */
export function publicBaseUrl(request: RequestLike, configured: string | null): string {
  if (configured) return configured;
  const proto = firstHeader(request, 'x-forwarded-proto') ?? request.protocol;
  const host = firstHeader(request, 'x-forwarded-host') ?? request.host;
  const prefix = (firstHeader(request, 'x-forwarded-prefix') ?? '').replace(/\/+$/, '');
  const scheme = proto === 'https' ? 'https' : 'http';
  return `${scheme}://${host}${prefix === '' || prefix.startsWith('/') ? prefix : `/${prefix}`}`;
}

/** The path prefix of `server.base.url` (an instance behind a proxy under `/stratus` has `/stratus`). */
export function basePath(baseUrl: string): string {
  return new URL(baseUrl).pathname.replace(/\/+$/, '');
}
