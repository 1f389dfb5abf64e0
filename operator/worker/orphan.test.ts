import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToWorker } from './protocol.ts';

const WORKER = resolve(import.meta.dirname, 'main.ts');
const TASKS = resolve(import.meta.dirname, '../../test/fixtures/worker/tasks.ts');

/**
 * Starts `task` in a forked worker, disconnects once it is under way (as when the embedded server is killed with
 * -9), and answers how long the worker took to end after that. It must stop: the runner's successor starts the
 * attempt again on the same staging directory, and nobody can record this one any more.
 */
async function orphan(task: string, input: unknown): Promise<number> {
  const child = fork(WORKER, [], { env: { ...process.env, STRATUS_WORKER_TASK_MODULES: TASKS }, stdio: 'ignore' });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  const started = new Promise<void>((resolveStarted) => child.once('message', () => resolveStarted()));
  child.send({ type: 'start', task, input } satisfies ToWorker);
  // A task that reports no progress is given a moment to be under way.
  await Promise.race([started, new Promise((r) => setTimeout(r, 1_500))]);
  const disconnected = performance.now();
  child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
  return performance.now() - disconnected;
}

describe('a worker whose runner is gone', () => {
  it('stops between units of work at once', async () => {
    const msAfterDisconnect = await orphan('count', { steps: 500, stepMs: 20 });
    // The whole count would take 10 s; it stops at the next step.
    expect(msAfterDisconnect).toBeLessThan(1_500);
  });

  it('ends after the grace even when its task ignores cancellation', async () => {
    const msAfterDisconnect = await orphan('stubborn', null);
    expect(msAfterDisconnect).toBeGreaterThanOrEqual(1_900);
    expect(msAfterDisconnect).toBeLessThan(8_000);
  });
});
