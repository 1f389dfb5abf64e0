import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedCluster } from './index.ts';

describe('one owner per data directory', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-owner-'));
  });
  afterEach(async () => rm(dataDir, { recursive: true, force: true }));

  it('refuses a second open in this process until the first is closed', async () => {
    const first = await openEmbeddedCluster({ dataDir });
    expect(await readFile(join(dataDir, 'owner.pid'), 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
    await expect(openEmbeddedCluster({ dataDir })).rejects.toThrow(/already open in this process/);
    await first.close();
    await expect(readFile(join(dataDir, 'owner.pid'))).rejects.toMatchObject({ code: 'ENOENT' });
    await (await openEmbeddedCluster({ dataDir })).close();
  });

  it('refuses a directory another running process owns, and takes over one whose process is gone', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      await writeFile(join(dataDir, 'owner.pid'), `${child.pid}\n${hostname()}\n`);
      await expect(openEmbeddedCluster({ dataDir })).rejects.toThrow(`is open in process ${child.pid}`);
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    // Killed: what it left is stale.
    const cluster = await openEmbeddedCluster({ dataDir });
    expect(await readFile(join(dataDir, 'owner.pid'), 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
    await cluster.close();
  });

  it('refuses a directory owned on another host, naming the file to remove', async () => {
    await writeFile(join(dataDir, 'owner.pid'), '4242\nelsewhere.example.org\n');
    await expect(openEmbeddedCluster({ dataDir })).rejects.toThrow(
      `owned by process 4242 on host elsewhere.example.org; if no process uses it any more, remove ${join(dataDir, 'owner.pid')}`,
    );
  });
});
