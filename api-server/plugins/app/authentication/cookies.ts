import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InstanceConfig } from '../../../../core/config/index.ts';

/**
 * The cookies of sign-in: HTTP-only, SameSite=Lax, Path=/ and, when the browser reaches the instance over HTTPS,
 * Secure with the `__Host-` prefix (which also forbids a sibling domain to set them).
 */
export const SESSION_COOKIE = 'stratus_session';
export const CSRF_COOKIE = 'stratus_csrf';
const HOST_PREFIX = '__Host-';

/** Cookies of a request, by name; a malformed pair is skipped. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const name = pair.slice(0, eq).trim();
    let value = pair.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (!cookies.has(name)) cookies.set(name, value);
  }
  return cookies;
}

/**
 * Whether the browser reaches the instance over HTTPS: `server.base.url` is https, the connection is TLS, or a
 * trusted proxy (`server.proxy.trusted`) says so in `X-Forwarded-Proto`. An untrusted header is never believed.
 */
export function isSecureRequest(
  request: Pick<FastifyRequest, 'protocol' | 'headers'>,
  config: InstanceConfig,
): boolean {
  if (config.server.baseUrl?.startsWith('https://')) return true;
  if (request.protocol === 'https') return true;
  const forwarded = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  return config.server.proxyTrusted && first === 'https';
}

export function cookieName(base: string, secure: boolean): string {
  return secure ? `${HOST_PREFIX}${base}` : base;
}

/** The value of one of our cookies, under the name this request's security gives it. */
export function readCookie(
  request: Pick<FastifyRequest, 'headers'>,
  base: string,
  secure: boolean,
): string | undefined {
  return parseCookies(request.headers.cookie).get(cookieName(base, secure));
}

export function setCookie(
  reply: FastifyReply,
  base: string,
  value: string,
  options: { secure: boolean; maxAgeSeconds: number },
): void {
  const attributes = [
    `${cookieName(base, options.secure)}=${value}`,
    'Path=/',
    `Max-Age=${options.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(options.secure ? ['Secure'] : []),
  ];
  const previous = reply.getHeader('set-cookie');
  const list = previous === undefined ? [] : Array.isArray(previous) ? previous : [String(previous)];
  reply.header('set-cookie', [...list, attributes.join('; ')]);
}

export function clearCookie(reply: FastifyReply, base: string, secure: boolean): void {
  setCookie(reply, base, '', { secure, maxAgeSeconds: 0 });
}

/** The session cookie's value as the raw request carries it under either name (for the log's sessionId). */
export function rawSessionCookie(request: IncomingMessage): string | undefined {
  const cookies = parseCookies(request.headers.cookie);
  return cookies.get(`${HOST_PREFIX}${SESSION_COOKIE}`) ?? cookies.get(SESSION_COOKIE);
}
