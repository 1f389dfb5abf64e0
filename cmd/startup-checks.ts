import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

/**
 * Embedded mode cannot start as asked, for a reason the person starting it can fix: the command line prints the
 * message alone (what, and how to fix it) and exits with status 2.
 */
export class StartupRefusal extends Error {}

/** Creates the data directory when missing and proves it writable, before anything is written into it. */
export async function checkDataDir(dataDir: string): Promise<void> {
  // A probe of our own: `access(W_OK)` says yes to root on a read-only mount.
  const probe = join(dataDir, `.stratus-write-check-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(dataDir, { recursive: true });
    await writeFile(probe, '');
    await rm(probe);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!code) throw err;
    throw new StartupRefusal(
      `the data directory ${dataDir} is not writable (${code}): fix its permissions, or choose another with DATA_DIR=/path make run (--data-dir)`,
    );
  }
}

/** A listening socket held for the API server. */
export interface ReservedPort {
  /**
   * Hands the socket over: the TCP handle inside the listening server, which `listen({ handle })` takes (a
   * `net.Server` itself it refuses). From then on the API server closes it.
   */
  take(): object;
  /**
   * Once the API server listens on the handle `take` gave: the connections that came while the start ran go to it
   * (node:http serves a socket emitted as `'connection'`), so their requests are answered as if they came now.
   */
  handOver(server: Server): void;
  /**
   * Closes the socket unless the API server took it, and the connections waiting for it: a start that failed must
   * not leave it listening, nor its early clients waiting.
   */
  release(): void;
}

/**
 * Listens on the API server's address before the store opens, so that a port in use refuses the start before any
 * run could begin. Node accepts a listening socket's connections at once, so the ones that come before the API server
 * serves land here: held unread, they go to it at `handOver`; left alone, they would wait for an answer forever.
 */
export async function reservePort(host: string, port: number): Promise<ReservedPort> {
  // Until the API server listens on the handle, its connections come here; from then on they go to it.
  const waiting: Socket[] = [];
  const server = await listening(host, port, (socket) => waiting.push(socket));
  let taken = false;
  return {
    take: () => {
      taken = true;
      return (server as unknown as { _handle: object })._handle;
    },
    handOver: (apiServer) => {
      for (const socket of waiting.splice(0)) {
        apiServer.emit('connection', socket);
        // node:http reads a connection it accepted itself; one handed to it paused stays paused.
        socket.resume();
      }
    },
    release: () => {
      for (const socket of waiting.splice(0)) socket.destroy();
      if (!taken) server.close();
    },
  };
}

function listening(host: string, port: number, onConnection: (socket: Socket) => void): Promise<Server> {
  return new Promise((resolve, reject) => {
    // Held paused, a connection is not read until it is handed over: its request stays in the kernel for the API
    // server, and a client that gives up meanwhile raises no 'error' on a socket nobody listens to yet.
    const server = createServer({ pauseOnConnect: true }, onConnection);
    server.once('error', (err: NodeJS.ErrnoException) => {
      const other = port + 1;
      const instead = `start with PORT=${other} make run (--port ${other})`;
      if (err.code === 'EADDRINUSE')
        reject(new StartupRefusal(`port ${port} on ${host} is in use: stop the other process, or ${instead}`));
      else if (err.code === 'EACCES')
        reject(new StartupRefusal(`port ${port} on ${host} needs privileges this process lacks: ${instead}`));
      else if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND')
        reject(new StartupRefusal(`cannot listen on ${host} (${err.code}): use an address of this machine (--host)`));
      else reject(err);
    });
    server.listen({ host, port }, () => resolve(server));
  });
}
