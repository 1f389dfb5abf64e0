import { isProviderAvailable } from '../../core/providers/available.ts';
import { TaskError, type Task } from './protocol.ts';

interface RunInput {
  source: string;
  provider: string;
}

/**
 * Ingestion and sync runs. The providers that fetch data arrive with the raster datasets work; until a provider
 * is available the run fails with a clear, typed error instead of pretending to have fetched anything.
 */
const ingestion: Task = async (input, context) => {
  const { source, provider } = input as RunInput;
  context.throwIfCancelled();
  if (!isProviderAvailable(provider)) {
    throw new TaskError(
      'ProviderUnavailable',
      `No provider named ${provider} on this instance for data source ${source}.`,
    );
  }
  throw new TaskError('ProviderUnavailable', `Provider ${provider} has no ingestion implementation yet.`);
};

/** Tasks by name; test tasks are loaded from `STRATUS_WORKER_TASK_MODULES` so none ships here. */
export const tasks: Record<string, Task> = { ingestion, sync: ingestion };

export async function loadTask(name: string): Promise<Task | undefined> {
  for (const module of (process.env.STRATUS_WORKER_TASK_MODULES ?? '').split(',').filter(Boolean)) {
    const extra = (await import(module)) as { tasks?: Record<string, Task> };
    if (extra.tasks?.[name]) return extra.tasks[name];
  }
  return tasks[name];
}
