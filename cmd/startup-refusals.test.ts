/**
 * What a person starting `make run` can fix refuses the start with one line that says what and how, exit status 2,
 * no stack trace, and nothing started: no resource applied (the examples' Ingestion), no port left listening.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[]): Promise<Ended> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

function embedded(args: string[]): Promise<Ended> {
  return run(process.execPath, [join(root, 'cmd/stratus.ts'), 'embedded', ...args]);
}

/** Every file under `dir`, with its text. */
async function filesUnder(dir: string): Promise<{ path: string; text: string }[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  return Promise.all(files.map(async (path) => ({ path, text: await readFile(path, 'latin1') })));
}

function listen(server: Server, port = 0): Promise<number> {
  return new Promise((done) =>
    server.listen(port, '127.0.0.1', () => done((server.address() as { port: number }).port)),
  );
}

describe('start-up refusals', () => {
  let dir: string;
  const taken = createServer();
  let takenPort: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-refusals-'));
    takenPort = await listen(taken);
  });
  afterAll(async () => {
    taken.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('make run with its port taken says so in one line, exits 2 and applies nothing', async () => {
    const dataDir = join(dir, 'port-taken');
    // `-o`: the dependency stamp is not remade (this tree's node_modules may be a link to another checkout's).
    const ended = await run('make', [
      '-o',
      'node_modules/.stratus-installed',
      'run',
      `PORT=${takenPort}`,
      `DATA_DIR=${dataDir}`,
    ]);
    const ours = ended.stderr.split('\n').filter((line) => line && !/^make(\[\d+\])?: /.test(line));
    expect(ours).toEqual([
      `port ${takenPort} on 127.0.0.1 is in use: stop the other process, or start with PORT=${takenPort + 1} make run (--port ${takenPort + 1})`,
    ]);
    // make reports the command's own status.
    expect(ended.stderr).toMatch(/\] Error 2\n$/);
    expect(ended.code).toBe(2);
    const written = await filesUnder(dataDir);
    expect(written.filter((file) => file.text.includes('Ingestion')).map((file) => file.path)).toEqual([]);
  }, 60_000);

  it('refuses a data directory that cannot be written, in one line, with exit status 2', async () => {
    const notADirectory = join(dir, 'a-file');
    await writeFile(notADirectory, '');
    const dataDir = join(notADirectory, 'data');
    const ended = await embedded(['--data-dir', dataDir, '--port', '0', '--manifests', 'manifests/examples']);
    expect(ended.code).toBe(2);
    expect(ended.stdout).toBe('');
    expect(ended.stderr).toBe(
      `the data directory ${dataDir} is not writable (ENOTDIR): fix its permissions, or choose another with DATA_DIR=/path make run (--data-dir)\n`,
    );
  }, 60_000);

  it('refuses a bad configuration file in one line that names the line, with exit status 2 and nothing applied', async () => {
    const dataDir = join(dir, 'bad-config');
    const config = join(dir, 'bad.properties');
    await writeFile(config, 'instance.name = Refused\nserver.timeout.shutdown = soon\n');
    const port = createServer();
    const free = await listen(port);
    await new Promise((done) => port.close(done));
    const ended = await embedded([
      ...['--data-dir', dataDir, '--config', config, '--port', String(free)],
      ...['--manifests', 'manifests/data-sources', '--manifests', 'manifests/examples'],
    ]);
    expect(ended.code).toBe(2);
    expect(ended.stderr).toBe(
      `invalid instance configuration: ${config}:2: server.timeout.shutdown = soon: must be a whole number of seconds, 1 or more\n`,
    );
    expect((await filesUnder(dataDir)).map((file) => file.path)).toEqual([]);
    // The port was never taken, so it is free again at once.
    const again = createServer();
    expect(await listen(again, free)).toBe(free);
    again.close();
  }, 60_000);
});
