/**
 * The `processing` task: one attempt of an openEO batch job. It runs the job's process graph with the engine over
 * the resources pinned in its input, writes every `save_result` into `<attempt>.staging/` and publishes it with one
 * rename to `<attempt>/`, so a reader never sees part of a result; it logs to the attempt's job log as it goes.
 * A split attempt's parts (core/processing/jobs/split.ts) share the staging directory, each writing its share of
 * the one Zarr store; the last to finish publishes it and reports the attempt, the others report nothing.
 */
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { datasetCollections } from '../../core/processing/collections/datasets.ts';
import { storedFeatureCollections } from '../../core/processing/collections/feature-collections.ts';
import { DEFAULT_LIMITS } from '../../core/processing/graph/limits.ts';
import { isProcessingError, ProcessingError, runProcessGraph } from '../../core/processing/index.ts';
import { extentOf } from '../../core/processing/jobs/extent.ts';
import { jobLogWriter, LOG_LEVELS, type JobLogWriter, type LogLevel } from '../../core/processing/jobs/log.ts';
import { pinnedResources } from '../../core/processing/jobs/pinned.ts';
import { withPinnedVersions } from '../../core/processing/jobs/rerun.ts';
import { directorySink, sizeOf } from '../../core/processing/jobs/sink.ts';
import { writeFileAtomic } from '../../core/files/durable.ts';
import { formatOptions } from '../../core/processing/jobs/display.ts';
import { PROVENANCE_FILE } from '../../core/provenance/manifest.ts';
import { processingManifest } from '../../core/provenance/processing-manifest.ts';
import { storedWorkflows } from '../../core/processing/workflows.ts';
import type { Usage } from '../../core/resources/processing-job/schema.ts';
import { RunError } from '../../core/runs/errors.ts';
import { jobLogPath, jobPath, jobRunPath, storeFile } from '../../core/stores/layout.ts';
import { processingInputSchema, type ProcessingInput, type ProcessingResult } from './processing-input.ts';
import { Cancelled, type Part, type Task, type TaskContext } from './protocol.ts';

/**
 * Earlier attempts' results and logs go: a job serves the results of its latest run only. The parts of a split
 * attempt share its staging directory, which none of them removes.
 */
async function sweep(root: string, input: ProcessingInput, part: Part | undefined): Promise<void> {
  const dir = storeFile(root, jobPath(input.namespace, input.job));
  const shared = part ? [`${input.attempt}.staging`, `${input.attempt}.parts`] : [];
  for (const name of await readdir(dir).catch(() => [] as string[]))
    if (name !== 'logs' && !shared.includes(name)) await rm(join(dir, name), { recursive: true, force: true });
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

/** What a part leaves beside the shared staging directory once it saved its share: its usage. */
type PartMarker = Usage;

/**
 * Whether this part is the one that finishes a split attempt: it marks its share done, and the part that then
 * finds every marker and creates the completion claim first finishes; the others end with nothing to report.
 */
async function finishesParts(markers: string, part: Part, usage: Usage): Promise<PartMarker[] | undefined> {
  await writeFileAtomic(join(markers, String(part.index)), JSON.stringify(usage));
  const done = (await readdir(markers)).filter((name) => /^\d+$/.test(name));
  if (done.length < part.count) return undefined;
  try {
    await (await open(join(markers, 'completing'), 'wx')).close();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw err;
  }
  return Promise.all(done.map(async (name) => JSON.parse(await readFile(join(markers, name), 'utf8')) as PartMarker));
}

/** The usage of a split attempt: its longest part's duration, the parts' CPU time together, their largest memory. */
const combinedUsage = (usages: Usage[]): Usage => ({
  durationSeconds: Math.max(...usages.map((u) => u.durationSeconds)),
  cpuSeconds: Math.round(usages.reduce((sum, u) => sum + u.cpuSeconds, 0) * 1000) / 1000,
  peakMemoryMb: Math.max(...usages.map((u) => u.peakMemoryMb)),
});

async function run(input: ProcessingInput, context: TaskContext, log: JobLogWriter): Promise<ProcessingResult | null> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const cpu = process.cpuUsage();
  const root = input.storageRoot;
  const final = storeFile(root, jobRunPath(input.namespace, input.job, input.attempt));
  const staging = `${final}.staging`;
  const { part } = context;
  const label = part
    ? `Part ${part.index + 1} of ${part.count} of attempt ${input.attempt}`
    : `Attempt ${input.attempt}`;
  await sweep(root, input, part);
  await mkdir(staging, { recursive: true });
  const pinned = input.rerun
    ? withPinnedVersions(input.resources as KubeObject[], input.rerun.datasetVersions)
    : { resources: input.resources as KubeObject[] };
  const cluster = pinnedResources(pinned.resources ?? []);
  const stores = { cluster, namespace: input.namespace, storageRoot: root };
  const graph = (input.process as { process_graph?: unknown }).process_graph;
  const results = directorySink(
    staging,
    DEFAULT_LIMITS.maxCubeCells,
    formatOptions(graph, cluster, input.namespace),
    part,
    (message) => void log.write({ level: 'warning', message }),
  );
  await log.write({ level: 'info', message: `${label} started.` });
  context.progress(0, 1, 'running the process graph');
  try {
    if (pinned.missing)
      throw new ProcessingError(
        'CollectionNotFound',
        `The versions ${pinned.missing.join(', ')} that job ${input.rerun!.of} read are no longer retained.`,
      );
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
    let usage = usageSince(started, cpu);
    if (part) {
      const usages = await finishesParts(`${final}.parts`, part, usage);
      await log.write({
        level: 'info',
        message: `${label} saved its share in ${usage.durationSeconds} s.`,
        data: usage,
      });
      if (!usages) return null;
      usage = combinedUsage(usages);
      // The sizes are the store's now that every part wrote its share.
      for (const saved of results.saved)
        if (saved.file.directory) saved.file.size = await sizeOf(join(staging, saved.file.name));
    }
    const files = results.saved.map((s) => s.file);
    for (const file of files) await log.write({ level: 'info', message: `Saved ${file.name} (${file.size} bytes).` });
    const manifest = await processingManifest({
      job: input.job,
      attempt: input.attempt,
      ...(input.rerun && { rerunOf: input.rerun.of }),
      process: input.process,
      resources: pinned.resources!,
      inputs: input.inputs,
      storageRoot: root,
      dir: staging,
      saved: results.saved,
      startedAt,
      finishedAt: new Date().toISOString(),
    });
    await writeFileAtomic(join(staging, PROVENANCE_FILE), JSON.stringify(manifest, null, 2));
    await rename(staging, final);
    if (part) await rm(`${final}.parts`, { recursive: true, force: true });
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
    // A part that fails fails the attempt, whose other parts are stopped: none of its files are served.
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
