import { spawn } from 'node:child_process';
import { link, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RollingFile } from './rolling-file.ts';

const WRITER = resolve(import.meta.dirname, '../../test/fixtures/logging/write-lines.ts');

/** A 40-byte line numbered `n`. */
const line = (n: number) => `${String(n).padStart(2, '0')}${'.'.repeat(37)}\n`;

describe('RollingFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-rolling-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('rolls before a line would pass the limit and keeps at most max_archives archives, newest first', async () => {
    const file = new RollingFile(join(dir, 'x.log'), { limitBytes: 100, maxArchives: 2 });
    for (let i = 0; i < 10; i++) file.write(line(i));
    file.close();
    expect((await readdir(dir)).sort()).toEqual(['x.log', 'x.log.1', 'x.log.2']);
    expect(await readFile(join(dir, 'x.log'), 'utf8')).toBe(line(8) + line(9));
    expect(await readFile(join(dir, 'x.log.1'), 'utf8')).toBe(line(6) + line(7));
    expect(await readFile(join(dir, 'x.log.2'), 'utf8')).toBe(line(4) + line(5));
  });

  it('drops what is written after it was closed, rather than open the file again', async () => {
    const path = join(dir, 'closed.log');
    const file = new RollingFile(path, { limitBytes: 100, maxArchives: 1 });
    file.write(line(1));
    file.close();
    await rm(path);
    file.write(line(2));
    await sleep(50);
    expect(await readdir(dir)).toEqual([]);
  });

  it('starts the file over when no archives are kept', async () => {
    const file = new RollingFile(join(dir, 'y.log'), { limitBytes: 100, maxArchives: 0 });
    for (let i = 0; i < 5; i++) file.write(line(i));
    file.close();
    expect(await readdir(dir)).toEqual(['y.log']);
    expect(await readFile(join(dir, 'y.log'), 'utf8')).toBe(line(4));
  });

  it('writes a line longer than the limit alone in its file', async () => {
    const file = new RollingFile(join(dir, 'z.log'), { limitBytes: 50, maxArchives: 3 });
    file.write(line(1));
    file.write(`${'#'.repeat(80)}\n`);
    file.write(line(2));
    file.close();
    expect(await readFile(join(dir, 'z.log.2'), 'utf8')).toBe(line(1));
    expect(await readFile(join(dir, 'z.log.1'), 'utf8')).toBe(`${'#'.repeat(80)}\n`);
    expect(await readFile(join(dir, 'z.log'), 'utf8')).toBe(line(2));
  });

  it('writes into the file another writer rolled to, never into the archive', async () => {
    const path = join(dir, 'shared.log');
    const a = new RollingFile(path, { limitBytes: 100, maxArchives: 5 });
    const b = new RollingFile(path, { limitBytes: 100, maxArchives: 5 });
    a.write(line(1));
    a.write(line(2));
    a.flushSync();
    b.write(line(3)); // rolls: shared.log becomes shared.log.1
    b.flushSync();
    a.write(line(4)); // a's descriptor is the archive's now; the line goes to the new file
    a.close();
    b.close();
    expect(await readFile(`${path}.1`, 'utf8')).toBe(line(1) + line(2));
    expect(await readFile(path, 'utf8')).toBe(line(3) + line(4));
  });

  it('drops archives past a lowered max_archives at the next roll', async () => {
    const path = join(dir, 'w.log');
    for (const n of [1, 2, 3, 4]) await writeFile(`${path}.${n}`, line(n));
    const file = new RollingFile(path, { limitBytes: 40, maxArchives: 2 });
    file.write(line(5));
    file.write(line(6));
    file.close();
    expect((await readdir(dir)).sort()).toEqual(['w.log', 'w.log.1', 'w.log.2']);
    expect(await readFile(`${path}.1`, 'utf8')).toBe(line(5));
    expect(await readFile(`${path}.2`, 'utf8')).toBe(line(1));
  });

  it('writes a line at the end of its turn, and the lines that follow soon after a write together, an interval later', async () => {
    const path = join(dir, 'paced.log');
    // An interval far longer than the test's own pauses, so that a loaded machine cannot reach it early.
    const file = new RollingFile(path, { limitBytes: 1000, maxArchives: 1, flushIntervalMs: 2_000 });
    file.write(line(1));
    await new Promise(setImmediate);
    expect(await readFile(path, 'utf8')).toBe(line(1));
    file.write(line(2));
    await sleep(100);
    file.write(line(3));
    await sleep(100);
    expect(await readFile(path, 'utf8')).toBe(line(1));
    const start = Date.now();
    while ((await readFile(path, 'utf8')) === line(1) && Date.now() - start < 10_000) await sleep(20);
    expect(await readFile(path, 'utf8')).toBe(line(1) + line(2) + line(3));
    file.close();
  });

  /** A lock held by `pid` of `host`: its owner file (in `ownerDir`), and the link to it beside the log file. */
  async function holdLock(logPath: string, host: string, pid: number, ownerDir = dir): Promise<string> {
    const lock = join(dirname(logPath), `.${basename(logPath)}.lock`);
    const owner = join(ownerDir, `.${basename(logPath)}.lock.${pid}.cafe`);
    await writeFile(owner, `${host}:${pid}:cafe`);
    await link(owner, lock);
    return lock;
  }

  it('holds lines back while another process holds the lock, and writes them once it is released', async () => {
    const path = join(dir, 'held.log');
    const file = new RollingFile(path, { limitBytes: 1000, maxArchives: 1 });
    // The parent of this test process is alive, and holds the lock for as long as this test says.
    const lock = await holdLock(path, hostname(), process.ppid);
    file.write(line(1));
    await sleep(100);
    expect(await readFile(path, 'utf8')).toBe('');
    await rm(lock);
    await sleep(100);
    expect(await readFile(path, 'utf8')).toBe(line(1));
    file.close();
  });

  it.each([
    [
      'a process of this host that is gone, and removes its owner file',
      (path: string) => holdLock(path, hostname(), 999_999_999),
    ],
    [
      // Earlier versions made the lock a symbolic link whose target named its holder; this one's holder is gone.
      'the symbolic link that a process of an earlier version left as its lock',
      (path: string) => symlink(`${hostname()}:999999999:${Date.now()}:1`, join(dir, `.${basename(path)}.lock`)),
    ],
  ])('takes over the lock left by %s', async (_, leaveLock) => {
    const path = join(dir, 'stale.log');
    await leaveLock(path);
    const file = new RollingFile(path, { limitBytes: 1000, maxArchives: 1 });
    file.write(line(1));
    file.close();
    expect(await readFile(path, 'utf8')).toBe(line(1));
    expect(await readdir(dir)).toEqual(['stale.log']);
  });

  it('takes over a lock of another host once its link is older than lockStaleMs', async () => {
    const path = join(dir, 'stale.log');
    const elsewhere = await mkdtemp(join(tmpdir(), 'stratus-elsewhere-'));
    try {
      // The owner file of another host's process is not this host's to remove: it lives outside the directory.
      await holdLock(path, 'elsewhere', 12, elsewhere);
      const file = new RollingFile(path, { limitBytes: 1000, maxArchives: 1, lockStaleMs: 1_000 });
      file.write(line(1));
      await sleep(100);
      expect(await readFile(path, 'utf8')).toBe('');
      file.close();
      expect(await readFile(path, 'utf8')).toBe(line(1));
      expect(await readdir(dir)).toEqual(['stale.log']);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('sweeps the owner files that killed processes of this host left, and keeps live ones', async () => {
    const path = join(dir, 'swept.log');
    const dead = join(dir, '.swept.log.lock.999999999.0bad');
    const live = join(dir, `.swept.log.lock.${process.ppid}.0900d`);
    await writeFile(dead, `${hostname()}:999999999:0bad`);
    await writeFile(live, `${hostname()}:${process.ppid}:0900d`);
    const file = new RollingFile(path, { limitBytes: 1000, maxArchives: 1 });
    file.close();
    expect((await readdir(dir)).sort()).toEqual([basename(live), 'swept.log']);
  });

  it('keeps every line whole and none lost when several processes write across ten rolls', async () => {
    const writers = 4;
    const lines = 1500;
    const path = join(dir, 'stress.log');
    // About 85 bytes a line on average: ~510 kB in all, so a 40 kB limit rolls a dozen times.
    const limit = 40_000;
    const archives = 30;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: writers }, (_, writer) => {
        const child = spawn(
          process.execPath,
          [WRITER, path, String(writer), String(lines), String(limit), String(archives)],
          {
            stdio: ['ignore', 'ignore', 'inherit'],
          },
        );
        return new Promise<void>((done, fail) =>
          child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`writer ${writer} exited with ${code}`)))),
        );
      }),
    );
    const elapsed = performance.now() - started;
    const names = (await readdir(dir)).filter((n) => n.startsWith('stress.log'));
    const archived = names.filter((n) => n !== 'stress.log').map((n) => Number(n.slice('stress.log.'.length)));
    expect(archived.length, 'rolls').toBeGreaterThanOrEqual(10);
    expect(archived.length).toBeLessThanOrEqual(archives);
    // Neither the lock nor a writer's owner file outlives the writers.
    expect((await readdir(dir)).filter((n) => n.startsWith('.stress.log.lock'))).toEqual([]);
    // Oldest first: per writer, its lines come in the order it wrote them.
    const files = [...archived.sort((a, b) => b - a).map((n) => `${path}.${n}`), path];
    const next = new Array<number>(writers).fill(0);
    for (const name of files) {
      expect((await stat(name)).size, name).toBeLessThanOrEqual(limit);
      const text = await readFile(name, 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      for (const raw of text.slice(0, -1).split('\n')) {
        const entry = JSON.parse(raw) as { writer: number; n: number; pad: string };
        expect(entry.n, `writer ${entry.writer}`).toBe(next[entry.writer]);
        next[entry.writer]!++;
      }
    }
    expect(next).toEqual(new Array<number>(writers).fill(lines));
    expect(elapsed).toBeLessThan(10_000);
  });

  it('keeps at most max_archives archives, none above the limit, when several processes roll often', async () => {
    const path = join(dir, 'few.log');
    await Promise.all(
      [0, 1, 2].map((writer) => {
        const child = spawn(process.execPath, [WRITER, path, String(writer), '800', '8000', '3'], {
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        return new Promise<void>((done) => child.on('exit', () => done()));
      }),
    );
    const names = (await readdir(dir)).sort();
    expect(names).toEqual(['few.log', 'few.log.1', 'few.log.2', 'few.log.3']);
    for (const name of names) {
      const text = await readFile(join(dir, name), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(8000);
      for (const raw of text.slice(0, -1).split('\n')) expect(() => JSON.parse(raw), raw).not.toThrow();
    }
  });
});
