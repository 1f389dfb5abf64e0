import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTask } from './tasks.ts';

describe('worker tasks', () => {
  afterEach(() => {
    delete process.env.STRATUS_WORKER_TASK_MODULES;
  });

  it('loads test tasks from test/fixtures/worker/ only, never a module elsewhere that the environment names', async () => {
    process.env.STRATUS_WORKER_TASK_MODULES = resolve(import.meta.dirname, '../../test/fixtures/worker/tasks.ts');
    expect(await loadTask('count')).toBeTypeOf('function');
    for (const module of [
      '/tmp/evil.ts',
      resolve(import.meta.dirname, '../../test/fixtures/worker/../../../core/index.ts'),
    ]) {
      process.env.STRATUS_WORKER_TASK_MODULES = module;
      await expect(loadTask('count')).rejects.toThrow(`STRATUS_WORKER_TASK_MODULES: ${module} is outside`);
    }
  });
});
