/**
 * The port embedded mode reserves before its store opens: a client that connects while the start runs is answered
 * once the API server serves, as it would be had the connection waited in the kernel's queue.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../scripts/free-port.ts';
import { reservePort, type ReservedPort } from './startup-checks.ts';

/** Connects and sends a whole GET; resolves once the connection stands and the server's accept had a turn. */
async function requestEarly(port: number, path: string): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  // Node accepts in the same loop turn as this 'connect' or the next: by then the reservation holds the connection.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return socket;
}

/** What the server sent before closing the connection; an error when nothing came within the bound. */
function responseOf(socket: Socket, withinMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.setTimeout(withinMs, () => socket.destroy(new Error(`no answer within ${withinMs} ms`)));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.once('error', reject);
    socket.once('close', () => resolve(text));
  });
}

describe('the reserved port', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** What embedded mode does once its API server is built: it listens on the reserved socket, then takes the rest. */
  async function serveOn(reserved: ReservedPort): Promise<void> {
    const server = createHttpServer((request, response) => response.end(`served ${request.url}`));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen({ handle: reserved.take() }, resolve));
    reserved.handOver(server);
  }

  it('answers a request that came while the start ran, once the API server serves', async () => {
    const port = await freePort();
    const reserved = await reservePort('127.0.0.1', port);
    const early = await requestEarly(port, '/early');
    const response = responseOf(early, 15_000);

    await serveOn(reserved);

    const text = await response;
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toMatch(/\r\n\r\nserved \/early$/);
  });

  it('answers the others when a client gave up while the start ran', async () => {
    const port = await freePort();
    const reserved = await reservePort('127.0.0.1', port);
    const gaveUp = await requestEarly(port, '/gave-up');
    gaveUp.resetAndDestroy();
    const early = await requestEarly(port, '/early');
    const response = responseOf(early, 15_000);

    await serveOn(reserved);

    expect(await response).toMatch(/\r\n\r\nserved \/early$/);
  });

  it('closes the connections still waiting when the start fails, and the port', async () => {
    const port = await freePort();
    const reserved = await reservePort('127.0.0.1', port);
    const early = await requestEarly(port, '/early');
    const response = responseOf(early, 15_000);

    reserved.release();

    // Closed unanswered: an end or a reset, not a wait for an answer that would never come.
    expect(await response.catch((err: NodeJS.ErrnoException) => err.code)).toMatch(/^(|ECONNRESET)$/);
    const again = await reservePort('127.0.0.1', port);
    again.release();
  });
});
