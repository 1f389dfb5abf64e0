import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToWorker } from './protocol.ts';

const WORKER = resolve(import.meta.dirname, 'main.ts');
const TASKS = resolve(import.meta.dirname, '../../test/fixtures/worker/tasks.ts');

/**
 * Starts `task` in a forked worker, disconnects once it is under way (as when the embedded server is killed with
 * -9), and answers how long the worker took to end after that. It must stop: the runner's successor starts the
 * attempt again on the same staging directory, and nobody can record this one any more. A task that reports
 * progress is under way at its first report, however long a loaded machine takes to start the process; one that
 * reports none is given `quietStartMs`.
 */
async function orphan(task: string, input: unknown, quietStartMs = 15_000): Promise<number> {
  const child = fork(WORKER, [], { env: { ...process.env, STRATUS_WORKER_TASK_MODULES: TASKS }, stdio: 'ignore' });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  const started = new Promise<void>((resolveStarted) => child.once('message', () => resolveStarted()));
  child.send({ type: 'start', task, input } satisfies ToWorker);
  await Promise.race([started, new Promise((r) => setTimeout(r, quietStartMs))]);
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
    const msAfterDisconnect = await orphan('stubborn', null, 1_500);
    expect(msAfterDisconnect).toBeGreaterThanOrEqual(1_900);
    expect(msAfterDisconnect).toBeLessThan(8_000);
  });
});
