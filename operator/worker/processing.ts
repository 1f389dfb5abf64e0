/**
 * The `processing` task: one attempt of an openEO batch job. It runs the job's process graph with the engine over
 * the resources pinned in its input, writes every `save_result` into `<attempt>.staging/` and publishes it with one
 * rename to `<attempt>/`, so a reader never sees part of a result; it logs to the attempt's job log as it goes.
 */
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { datasetCollections } from '../../core/processing/collections/datasets.ts';
import { storedFeatureCollections } from '../../core/processing/collections/feature-collections.ts';
import { DEFAULT_LIMITS } from '../../core/processing/graph/limits.ts';
import { isProcessingError, runProcessGraph } from '../../core/processing/index.ts';
import { extentOf } from '../../core/processing/jobs/extent.ts';
import { jobLogWriter, LOG_LEVELS, type JobLogWriter, type LogLevel } from '../../core/processing/jobs/log.ts';
import { pinnedResources } from '../../core/processing/jobs/pinned.ts';
import { directorySink } from '../../core/processing/jobs/sink.ts';
import { formatOptions } from '../../core/processing/results/display.ts';
import { storedWorkflows } from '../../core/processing/workflows.ts';
import type { Usage } from '../../core/resources/processing-job/schema.ts';
import { RunError } from '../../core/runs/errors.ts';
import { jobLogPath, jobPath, jobRunPath, storeFile } from '../../core/stores/layout.ts';
import { processingInputSchema, type ProcessingInput, type ProcessingResult } from './processing-input.ts';
import { Cancelled, type Task, type TaskContext } from './protocol.ts';

/** Earlier attempts' results and logs go: a job serves the results of its latest run only. */
async function sweep(root: string, input: ProcessingInput): Promise<void> {
  const dir = storeFile(root, jobPath(input.namespace, input.job));
  for (const name of await readdir(dir).catch(() => [] as string[]))
    if (name !== 'logs') await rm(join(dir, name), { recursive: true, force: true });
  const logs = join(dir, 'logs');
  for (const name of await readdir(logs).catch(() => [] as string[]))
    if (name !== `${input.attempt}.jsonl`) await rm(join(logs, name), { force: true });
}

function usageSince(started: number, cpu: NodeJS.CpuUsage): Usage {
  const used = process.cpuUsage(cpu);
  return {
    durationSeconds: Math.round(performance.now() - started) / 1000,
    cpuSeconds: Math.round((used.user + used.system) / 1000) / 1000,
    peakMemoryMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}

async function run(input: ProcessingInput, context: TaskContext, log: JobLogWriter): Promise<ProcessingResult> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const root = input.storageRoot;
  const final = storeFile(root, jobRunPath(input.namespace, input.job, input.attempt));
  const staging = `${final}.staging`;
  await sweep(root, input);
  await mkdir(staging, { recursive: true });
  const cluster = pinnedResources(input.resources as KubeObject[]);
  const stores = { cluster, namespace: input.namespace, storageRoot: root };
  const graph = (input.process as { process_graph?: unknown }).process_graph;
  const results = directorySink(staging, DEFAULT_LIMITS.maxCubeCells, formatOptions(graph, cluster, input.namespace));
  await log.write({ level: 'info', message: `Attempt ${input.attempt} started.` });
  context.progress(0, 1, 'running the process graph');
  try {
    const value = await runProcessGraph(graph, {
      services: {
        collections: datasetCollections(stores),
        features: storedFeatureCollections(stores),
        results,
        log: {
          write: ({ level, code, message, data, node }) =>
            void log.write({
              level: LOG_LEVELS.includes(level as LogLevel) ? (level as LogLevel) : 'info',
              code,
              message,
              data,
              path: [{ node_id: node }],
            }),
        },
      },
      userProcesses: storedWorkflows(cluster, input.namespace),
      signal: context.signal,
    });
    context.throwIfCancelled();
    // A graph without save_result still has a result: its value, as JSON.
    if (results.saved.length === 0) await results.save(value, 'JSON', {}, context.signal);
    const files = results.saved.map((s) => s.file);
    for (const file of files) await log.write({ level: 'info', message: `Saved ${file.name} (${file.size} bytes).` });
    await rename(staging, final);
    const usage = usageSince(started, cpu);
    await log.write({ level: 'info', message: `Finished in ${usage.durationSeconds} s.`, data: usage });
    context.progress(1, 1, 'finished');
    return {
      outcome: 'finished',
      path: jobRunPath(input.namespace, input.job, input.attempt),
      files,
      extent: extentOf(results.saved.map((s) => s.value)),
      usage,
    };
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    if (context.signal.aborted) {
      await log.write({ level: 'info', message: 'Cancelled.' });
      throw new Cancelled();
    }
    if (!isProcessingError(err)) throw err;
    await log.write({ level: 'error', code: err.code, message: err.message });
    return { outcome: 'error', error: { type: err.code, message: err.message }, usage: usageSince(started, cpu) };
  }
}

export const processing: Task = async (raw, context) => {
  const parsed = processingInputSchema.safeParse(raw);
  if (!parsed.success) throw new RunError('InvalidInput', `invalid processing input: ${parsed.error.message}`);
  const input = parsed.data;
  const log = jobLogWriter(storeFile(input.storageRoot, jobLogPath(input.namespace, input.job, input.attempt)));
  try {
    return await run(input, context, log);
  } catch (err) {
    if (!(err instanceof Cancelled))
      await log.write({ level: 'error', code: 'Internal', message: (err as Error).message }).catch(() => {});
    throw err;
  }
};

/**
 * The `remove-job-files` task: a deleted job's directory goes (its results and logs). A worker does it because the
 * operator's pod mounts the store read-only.
 */
export const removeJobFiles: Task = async (raw) => {
  const parsed = processingInputSchema.pick({ job: true, namespace: true, storageRoot: true }).safeParse(raw);
  if (!parsed.success) throw new RunError('InvalidInput', `invalid remove-job-files input: ${parsed.error.message}`);
  const { storageRoot, namespace, job } = parsed.data;
  await rm(storeFile(storageRoot, jobPath(namespace, job)), { recursive: true, force: true });
  return null;
};
