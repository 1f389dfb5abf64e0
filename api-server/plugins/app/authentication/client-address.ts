import type { FastifyRequest } from 'fastify';
import type { InstanceConfig } from '../../../../core/config/index.ts';

/**
 * The address a request came from, as the sign-in throttle counts it: the connection's peer, or, with
 * `server.proxy.trusted = on`, the last `X-Forwarded-For` entry, the one the trusted proxy itself appended (entries
 * before it are the client's own claims). Behind a proxy that is not trusted every request has the proxy's address.
 */
export function clientAddress(request: Pick<FastifyRequest, 'headers' | 'socket'>, config: InstanceConfig): string {
  const forwarded = request.headers['x-forwarded-for'];
  const last = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)?.split(',').at(-1)?.trim();
  if (config.server.proxyTrusted && last) return last;
  return request.socket.remoteAddress ?? '';
}
