import { resolve, sep } from 'node:path';
import { analyticsTable, removeAnalyticsTable } from './analytics-table.ts';
import { removeDatasetVersions } from './dataset-versions.ts';
import { delivery, removeDeliveryFiles } from './delivery.ts';
import { featureRefresh } from './feature-refresh.ts';
import { ingestion } from './ingestion.ts';
import { processing, removeJobFiles } from './processing.ts';
import type { Task } from './protocol.ts';

/** Tasks by name; test tasks are loaded from `STRATUS_WORKER_TASK_MODULES` so none ships here. */
export const tasks: Record<string, Task> = {
  ingestion,
  sync: ingestion,
  'feature-refresh': featureRefresh,
  processing,
  'remove-job-files': removeJobFiles,
  delivery,
  'remove-delivery-files': removeDeliveryFiles,
  'remove-dataset-versions': removeDatasetVersions,
  'analytics-table': analyticsTable,
  'remove-analytics-table': removeAnalyticsTable,
};

/**
 * The only folder test tasks load from. The image ships no `test/` folder (Dockerfile), so a production worker
 * loads no module whatever its environment says.
 */
const TEST_TASKS = resolve(import.meta.dirname, '../../test/fixtures/worker');

export async function loadTask(name: string): Promise<Task | undefined> {
  for (const module of (process.env.STRATUS_WORKER_TASK_MODULES ?? '').split(',').filter(Boolean)) {
    if (!resolve(module).startsWith(TEST_TASKS + sep))
      throw new Error(`STRATUS_WORKER_TASK_MODULES: ${module} is outside test/fixtures/worker/, where test tasks live`);
    const extra = (await import(module)) as { tasks?: Record<string, Task> };
    if (extra.tasks?.[name]) return extra.tasks[name];
  }
  return tasks[name];
}
