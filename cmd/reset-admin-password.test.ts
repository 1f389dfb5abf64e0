/**
 * `stratus reset-admin-password` on the data directory of `make run`: refused while the server holds it, then
 * with the server stopped a new password that signs in while the old one no longer does, and the second start's
 * banner says how.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitBanner } from '../test/support/embedded-banner.ts';

const root = resolve(import.meta.dirname, '..');
const stratus = join(root, 'cmd/stratus.ts');

interface Started {
  child: ChildProcess;
  url: string;
  banner: string;
  exited: Promise<unknown>;
}

/** `make run`'s command (its configuration signs users in) on `dataDir`, without the example manifests. */
async function start(dataDir: string): Promise<Started> {
  const child = spawn(process.execPath, [stratus, 'embedded', '--data-dir', dataDir, '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, STRATUS_HOME: dataDir },
  });
  const exited = new Promise((done) => child.on('exit', done));
  const { url, output } = await awaitBanner(child);
  return { child, url, banner: output, exited };
}

async function stop(running: Started): Promise<void> {
  running.child.kill('SIGINT');
  await running.exited;
}

function reset(dataDir: string) {
  return spawnSync(process.execPath, [stratus, 'reset-admin-password', '--data-dir', dataDir], {
    cwd: root,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

async function me(url: string, password: string): Promise<number> {
  const res = await fetch(`${url}/me`, {
    headers: { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` },
  });
  return res.status;
}

describe('reset-admin-password', () => {
  let dataDir: string;
  let oldPassword: string;
  let running: Started | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-reset-admin-'));
    running = await start(dataDir);
    oldPassword = /first admin +admin \/ (\S+) +\(shown once/.exec(running.banner)![1]!;
  }, 90_000);
  afterAll(async () => {
    running?.child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
  });

  it('is refused while the server holds the data directory, saying which process to stop', async () => {
    expect(await me(running!.url, oldPassword)).toBe(200);
    const refused = reset(dataDir);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe(
      `the embedded store in ${join(dataDir, 'cluster')} is open in process ${running!.child.pid}; stop it first\n`,
    );
  }, 60_000);

  it('prints a new password once that signs in, and the old one no longer does', async () => {
    await stop(running!);
    running = undefined;
    const done = reset(dataDir);
    expect(done.stderr).toBe('');
    expect(done.status).toBe(0);
    const newPassword = /new password of admin: (\S+) +\(shown once/.exec(done.stdout)?.[1];
    expect(newPassword).toBeDefined();
    expect(newPassword).not.toBe(oldPassword);

    running = await start(dataDir);
    expect(running.banner).not.toContain(newPassword);
    expect(running.banner).toContain('lost password  stop, then make reset-admin-password');
    expect(await me(running.url, newPassword!)).toBe(200);
    expect(await me(running.url, oldPassword)).toBe(401);
  }, 120_000);

  it('says that a data directory without a store has no admin to reset, with exit status 2', async () => {
    const empty = join(dataDir, 'never-started');
    const refused = reset(empty);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(
      `no embedded store in ${empty}: make run creates it (and the first admin) on its first start\n`,
    );
  });
});
