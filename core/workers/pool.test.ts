import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerPool, WorkerTaskError, taskRef } from './pool.ts';

const FIXTURES = new URL('../../test/fixtures/worker-tasks.ts', import.meta.url).href;
const double = taskRef<{ values: Float64Array }, { values: Float64Array; thread: number }>(FIXTURES, 'double');
const writeShared = taskRef<{ shared: Int32Array; index: number; value: number }, number>(FIXTURES, 'writeShared');
const spin = taskRef<{ ms: number }, number>(FIXTURES, 'spin');
const fail = taskRef<{ message: string }, never>(FIXTURES, 'fail');
const exitThread = taskRef<Record<string, never>, never>(FIXTURES, 'exitThread');
const PRELOAD = new URL('../../test/fixtures/worker-preload.ts', import.meta.url).href;

let pool: WorkerPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('WorkerPool', () => {
  it('transfers a buffer to a worker and back instead of copying it', async () => {
    pool = new WorkerPool(1);
    const values = Float64Array.of(1, 2, 3);
    const result = await pool.run(double, { values }, { transfer: [values.buffer] });
    expect(values.byteLength).toBe(0); // moved, not copied
    expect(Array.from(result.values)).toEqual([2, 4, 6]);
    expect(result.thread).not.toBe(0);
  });

  it('shares a SharedArrayBuffer: what the worker writes is seen here', async () => {
    pool = new WorkerPool(2);
    const shared = new Int32Array(new SharedArrayBuffer(8));
    await Promise.all([
      pool.run(writeShared, { shared, index: 0, value: 7 }),
      pool.run(writeShared, { shared, index: 1, value: 9 }),
    ]);
    expect(Array.from(shared)).toEqual([7, 9]);
  });

  it('runs tasks on as many threads as it has workers, at once', async () => {
    pool = new WorkerPool(2);
    const threads = await Promise.all([pool.run(spin, { ms: 300 }), pool.run(spin, { ms: 300 })]);
    expect(new Set(threads).size).toBe(2);
  });

  it('runs tasks on the calling thread with size 0, with the same results', async () => {
    pool = new WorkerPool(0);
    const result = await pool.run(double, { values: Float64Array.of(1.5) });
    expect(Array.from(result.values)).toEqual([3]);
    expect(result.thread).toBe(0);
    await expect(pool.run(fail, { message: 'inline' })).rejects.toMatchObject({
      name: 'WorkerTaskError',
      taskErrorName: 'FixtureError',
      message: 'inline',
    });
  });

  it("rejects a task with the task's error name and message, and keeps working", async () => {
    pool = new WorkerPool(1);
    const error = await pool.run(fail, { message: 'bad chunk' }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(WorkerTaskError);
    expect(error).toMatchObject({ taskErrorName: 'FixtureError', message: 'bad chunk' });
    expect(await pool.run(spin, { ms: 0 })).toBeGreaterThan(0);
  });

  it('rejects the task of a worker that dies, replaces the worker, and runs the queued tasks', async () => {
    pool = new WorkerPool(1);
    const dying = pool.run(exitThread, {});
    const next = pool.run(spin, { ms: 0 });
    await expect(dying).rejects.toMatchObject({ taskErrorName: 'WorkerExit' });
    expect(await next).toBeGreaterThan(0);
  });

  it('rejects an aborted task with the signal reason, queued or running', async () => {
    pool = new WorkerPool(1);
    const controller = new AbortController();
    const running = pool.run(spin, { ms: 200 }, { signal: controller.signal });
    const queued = pool.run(spin, { ms: 200 }, { signal: controller.signal });
    controller.abort(new Error('client gone'));
    await expect(running).rejects.toThrow('client gone');
    await expect(queued).rejects.toThrow('client gone');
    expect(await pool.run(spin, { ms: 0 })).toBeGreaterThan(0);
  });

  it('closes gracefully: the running task finishes, queued ones and later ones are refused', async () => {
    pool = new WorkerPool(1);
    const running = pool.run(spin, { ms: 200 });
    const queued = pool.run(spin, { ms: 0 });
    const closed = pool.close();
    await expect(queued).rejects.toMatchObject({ taskErrorName: 'WorkerPoolClosed' });
    expect(await running).toBeGreaterThan(0);
    await closed;
    await expect(pool.run(spin, { ms: 0 })).rejects.toMatchObject({ taskErrorName: 'WorkerPoolClosed' });
  });

  it('has every worker load the modules of a warm-up before the warm-up resolves', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stratus-pool-'));
    const log = join(dir, 'loaded');
    // Workers take the environment of their creation: the module logs to this test's file.
    process.env.STRATUS_TEST_PRELOAD_LOG = log;
    try {
      pool = new WorkerPool(2);
      await pool.warm({ module: PRELOAD });
      const threads = (await readFile(log, 'utf8')).trim().split('\n').map(Number);
      expect(threads).toHaveLength(2);
      expect(new Set(threads).size).toBe(2);
      expect(threads).not.toContain(0);
      // A warm-up of nothing answers after the earlier one: nothing is loaded again.
      await pool.warm();
      expect((await readFile(log, 'utf8')).trim().split('\n')).toHaveLength(2);
    } finally {
      delete process.env.STRATUS_TEST_PRELOAD_LOG;
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('does not keep a process alive once its tasks are done', async () => {
    // A script that uses a pool and never closes it must still end on its own.
    const script = `
      import { WorkerPool, taskRef } from ${JSON.stringify(new URL('./pool.ts', import.meta.url).href)};
      const pool = new WorkerPool(2);
      const spin = taskRef(${JSON.stringify(FIXTURES)}, 'spin');
      console.log(await Promise.all([pool.run(spin, { ms: 10 }), pool.run(spin, { ms: 10 })]));
    `;
    const dir = await mkdtemp(join(tmpdir(), 'stratus-pool-'));
    const file = join(dir, 'script.mjs');
    await writeFile(file, script);
    const started = Date.now();
    const { stdout } = await promisify(execFile)(process.execPath, [file], { timeout: 20_000 }).finally(() =>
      rm(dir, { recursive: true, force: true }),
    );
    expect(stdout).toMatch(/\[ \d+, \d+ \]/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
