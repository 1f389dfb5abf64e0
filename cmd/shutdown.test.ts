/**
 * Embedded mode (one API process, and two) stopped by SIGTERM while responses are in flight (docs/kubernetes.md, "Stopping"): new connections
 * are refused at once, a response whose client reads finishes whole, a response still unfinished at
 * `server.timeout.shutdown` is broken off so that its client sees an error, and the process then exits with 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../test/support/eventually.ts';

const root = resolve(import.meta.dirname, '..');
/** `server.timeout.shutdown` of the process under test: long enough for the reading client to get 30 MB on a loaded machine. */
const DRAIN_S = 6;
/** What the process may take past the drain bound to stop the rest and exit, on a loaded machine. */
const EXIT_MARGIN_MS = 5_000;

/** A synchronous run that answers about 30 MB of JSON: more than the socket buffers of both ends hold. */
const LARGE_RESULT = JSON.stringify({
  process: {
    process_graph: {
      a: { process_id: 'array_create', arguments: { data: ['x'.repeat(98)], repeat: 300_000 }, result: true },
    },
  },
});

/** A response being received: what its headers announced, and how it ended. */
interface Transfer {
  status: number;
  announced: number;
  response: IncomingMessage;
  /** Settles when the response is closed: `complete` is whether the client read a whole HTTP message. */
  ended: Promise<{ complete: boolean; received: number }>;
}

/**
 * `POST /result` on a connection of its own; resolves once the response headers are in. A `stalled` client reads
 * nothing of the body until its `response.resume()`.
 */
function postResult(url: string, { stalled = false } = {}): Promise<Transfer> {
  return new Promise((done, fail) => {
    const req = request(
      `${url}/result`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
      (response) => {
        let received = 0;
        response.on('data', (chunk: Buffer) => (received += chunk.length));
        if (stalled) response.pause();
        // A broken transfer is what this test looks for: its error is read from `complete`.
        response.on('error', () => undefined);
        const ended = new Promise<{ complete: boolean; received: number }>((end) =>
          response.on('close', () => end({ complete: response.complete, received })),
        );
        done({ status: response.statusCode!, announced: Number(response.headers['content-length']), response, ended });
      },
    );
    req.on('error', fail);
    req.end(LARGE_RESULT);
  });
}

/**
 * `POST /result` on a raw connection that stops reading once the answer starts; `ending` reads the rest when
 * called and tells how the connection ended: a reset (`ECONNRESET`) or the server's orderly close (`end`).
 */
function stalledRawPost(url: string): Promise<{ ending: () => Promise<string> }> {
  const { hostname, port } = new URL(url);
  return new Promise((started, fail) => {
    const socket = connect(Number(port), hostname);
    const ended = new Promise<string>((end) => {
      socket.once('end', () => end('end'));
      socket.once('error', (err: NodeJS.ErrnoException) => end(err.code ?? err.message));
    });
    socket.once('error', fail);
    socket.once('data', () => {
      socket.pause();
      started({
        ending: () => {
          socket.on('data', () => undefined);
          socket.resume();
          return ended;
        },
      });
    });
    const headers = `Host: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${LARGE_RESULT.length}`;
    socket.write(`POST /result HTTP/1.1\r\n${headers}\r\n\r\n${LARGE_RESULT}`);
  });
}

/** Whether a new TCP connection to the server's port is refused. */
function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      done(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED'));
  });
}

// With a further API process (docs/adr/0010), responses in flight may be either process's, and both must drain.
describe.each([1, 2])('embedded mode with %i API process(es) stopped by SIGTERM', (apiProcesses) => {
  let dataDir: string;
  let child: ChildProcess;
  let url: string;
  let exited: Promise<number | null>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-shutdown-'));
    const config = join(dataDir, 'stratus.properties');
    await writeFile(config, `instance.name = Shutdown\nserver.timeout.shutdown = ${DRAIN_S}\n`);
    child = spawn(
      process.execPath,
      [
        ...[join(root, 'cmd/stratus.ts'), 'embedded', '--data-dir', join(dataDir, 'data'), '--config', config],
        ...['--port', '0', '--api-processes', String(apiProcesses)],
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, STRATUS_HOME: dataDir } },
    );
    exited = new Promise((done) => child.on('exit', (code) => done(code)));
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    url = await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`embedded mode exited:\n${out}`);
        return /landing page +(\S+)\/\n/.exec(out)?.[1]?.replace('localhost', '127.0.0.1');
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
  }, 90_000);
  afterAll(async () => {
    child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
  });

  it('finishes a response whose client reads, breaks one unfinished at the bound, refuses new connections, and exits with 0', async () => {
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    // Two clients stop reading at once, so that their responses cannot finish before the bound.
    const [stalled, reading, stalledRaw] = await Promise.all([
      postResult(url, { stalled: true }),
      postResult(url),
      stalledRawPost(url),
    ]);
    for (const transfer of [stalled, reading]) {
      expect(transfer.status).toBe(200);
      expect(transfer.announced).toBe(30_300_001);
    }

    const signalled = Date.now();
    child.kill('SIGTERM');
    await eventually(() => refused(url).then((yes) => yes || undefined), { timeoutMs: 3_000, intervalMs: 50 });
    // Refused while the process still drains, not because it is gone.
    expect(child.exitCode).toBeNull();

    expect(await reading.ended).toEqual({ complete: true, received: reading.announced });

    expect(await exited).toBe(0);
    const took = Date.now() - signalled;
    // The stalled response held the drain to its bound; the rest of the stop is quick.
    expect(took).toBeGreaterThanOrEqual(DRAIN_S * 1000 - 250);
    expect(took).toBeLessThan(DRAIN_S * 1000 + EXIT_MARGIN_MS);

    stalled.response.resume();
    const cut = await stalled.ended;
    // Never a body shorter than announced that reads as whole.
    expect(cut.complete).toBe(false);
    expect(cut.received).toBeLessThan(stalled.announced);
    // Broken off by a reset, which every client reports as an error, not by an orderly close.
    expect(await stalledRaw.ending()).toBe('ECONNRESET');
  }, 60_000);
});
