import { createServer, STATUS_CODES, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { InstanceConfig } from '../core/config/index.ts';
import { errorBody, HttpError, type ErrorCode } from './errors.ts';
import { repeatedSingleHeader } from './plugins/app/single-headers.ts';
import type { ZarrFastPath } from './services/zarr/zarr-fast-path.ts';

/**
 * The node:http server under fastify: the `/zarr` fast path in front, the configured timeouts, and the answers
 * given before any request exists (a request HTTP cannot parse, headers too large or too slow, CONNECT), each with
 * the catalogue's body, as every other answer has.
 */

/** How often Node checks for requests past their header and request timeouts (its default is 30 s). */
const TIMEOUT_CHECK_MS = 1_000;

/** A whole HTTP/1.1 error response written on a socket, ending the connection (the stream may be out of step). */
function writeError(socket: Duplex, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  const error = new HttpError(code, message);
  const body = JSON.stringify(errorBody(error));
  const lines = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** What a parse or timeout failure of the connection answers (fastify's `clientErrorHandler`). */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ err: error }, 'client error');
  if (!socket.writable) return void socket.destroy();
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    writeError(socket, 'RequestTimeout', 'The request did not arrive in time.');
  else if (error.code === 'HPE_HEADER_OVERFLOW')
    writeError(socket, 'HeadersTooLarge', 'The request headers exceed the size limit.');
  else writeError(socket, 'BadRequest', 'The request is not valid HTTP.');
}

/** CONNECT asks for a tunnel, which an API server does not give: answered, not dropped. */
function refuseConnect(_request: IncomingMessage, socket: Duplex): void {
  writeError(socket, 'MethodNotAllowed', 'CONNECT is not supported: this server is no proxy.');
}

/** Each server's open connections, with how many responses each has not yet handed to the system. */
const openConnections = new WeakMap<Server, Map<Socket, number>>();

/**
 * Breaks every connection the server still has open with a TCP reset: a response cut this way is an error for any
 * client, where a plain close would end a body without a length as if it were complete.
 */
export function resetConnections(server: Server): void {
  for (const socket of openConnections.get(server)?.keys() ?? []) if (!socket.destroyed) socket.resetAndDestroy();
}

/** The server fastify is built on (its `serverFactory`), with the instance's timeouts. */
export function serverFactory(
  fastPath: () => ZarrFastPath | undefined,
  timeouts: InstanceConfig['server']['timeouts'],
) {
  return (handler: RequestListener, _options: FastifyServerOptions): Server => {
    const connections = new Map<Socket, number>();
    const server = createServer(
      {
        headersTimeout: timeouts.headersMs,
        requestTimeout: timeouts.requestMs,
        keepAliveTimeout: timeouts.keepAliveMs,
        connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, timeouts.headersMs),
      },
      (request, response) => {
        const socket = request.socket as Socket;
        connections.set(socket, (connections.get(socket) ?? 0) + 1);
        // 'close' comes once the response is handed to the system whole, or its connection is gone.
        response.once('close', () => connections.has(socket) && connections.set(socket, connections.get(socket)! - 1));
        const path = fastPath();
        // A request that repeats a single header is fastify's to refuse (plugins/app/single-headers.ts).
        const claim = repeatedSingleHeader(request) ? undefined : path?.claims(request);
        if (!claim) return handler(request, response);
        const served = path!.serve(request, response, claim);
        if (served === false) handler(request, response);
        else if (served !== true)
          void served.then((done) => {
            if (!done) handler(request, response);
          });
      },
    );
    openConnections.set(server, connections);
    server.on('connect', refuseConnect);
    server.on('connection', (socket: Socket) => {
      connections.set(socket, 0);
      socket.once('close', () => connections.delete(socket));
    });
    // What closing calls (node's `server.close()`, fastify's `close()`, `server.ts`'s sweep while draining). Node's
    // own counts a connection as idle once its response has ended, though the body may still be being written: it
    // would cut a long answer mid-body. Idle here is no response in progress; a request whose headers have not all
    // arrived has not started, and its connection is closed too.
    server.closeIdleConnections = () => {
      for (const [socket, responses] of connections) if (responses === 0) socket.destroy();
    };
    return server;
  };
}
