import { featureRefresh } from './feature-refresh.ts';
import { ingestion } from './ingestion.ts';
import type { Task } from './protocol.ts';

/** Tasks by name; test tasks are loaded from `STRATUS_WORKER_TASK_MODULES` so none ships here. */
export const tasks: Record<string, Task> = { ingestion, sync: ingestion, 'feature-refresh': featureRefresh };

export async function loadTask(name: string): Promise<Task | undefined> {
  for (const module of (process.env.STRATUS_WORKER_TASK_MODULES ?? '').split(',').filter(Boolean)) {
    const extra = (await import(module)) as { tasks?: Record<string, Task> };
    if (extra.tasks?.[name]) return extra.tasks[name];
  }
  return tasks[name];
}
