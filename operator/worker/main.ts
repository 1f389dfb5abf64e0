/**
 * The worker entry point: runs one task attempt. Forked by the embedded job runner (messages over IPC), or
 * started as a Kubernetes Job container with `--task NAME --input JSON` (messages as JSON lines on stdout, and
 * into the run's `status.worker` when `STRATUS_WORKER_REPORT_TO` names the run).
 */
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import type { Logging } from '../../core/logging/index.ts';
import { isRunKind } from '../../core/logging/runs.ts';
import { workerLogging } from '../../core/logging/settings.ts';
import { RunError } from '../../core/runs/errors.ts';
import {
  Cancelled,
  PART_COUNT_ENV,
  PART_INDEX_ENV,
  REPORT_TO_ENV,
  type FromWorker,
  type Part,
  type ReportTarget,
  type ToWorker,
} from './protocol.ts';
import { statusReporter } from './status-report.ts';
import { loadTask } from './tasks.ts';

/** The part of a split attempt this process does, from the environment the runner (or the Job controller) sets. */
function partOf(env: NodeJS.ProcessEnv): Part | undefined {
  const [index, count] = [env[PART_INDEX_ENV], env[PART_COUNT_ENV]];
  if (count === undefined || count === '') return undefined;
  if (!/^\d+$/.test(count) || !/^\d+$/.test(index ?? '') || Number(index) >= Number(count) || Number(count) < 1) {
    console.error(`${PART_INDEX_ENV}=${index} and ${PART_COUNT_ENV}=${count} do not name a part`);
    process.exit(2);
  }
  return { index: Number(index), count: Number(count) };
}

const part = partOf(process.env);
const logs = workerLogging(process.env);
/**
 * This worker's loggers, as the runner set them. A worker without settings does not log, nor load pino (a test's
 * worker starts sooner). Files that cannot be written leave standard output: the run matters more than its log.
 */
const logging: Logging | undefined = await (async () => {
  if (!logs.settings) return undefined;
  const { createLogging } = await import('../../core/logging/index.ts');
  try {
    return createLogging(logs.settings);
  } catch (err) {
    console.error(`${(err as Error).message}: this worker logs to standard output only`);
    return createLogging({ ...logs.settings, home: undefined, stdout: true });
  }
})();

/** What the worker logs through; without settings, nothing. */
type RunLog = Pick<Logger, 'info' | 'error'>;
const silent: RunLog = { info: () => {}, error: () => {} };

/** The log of the task's run: its kind's background file (core/logging/runs.ts), else the `worker` module's. */
function runLog(task: string): RunLog {
  if (!logging) return silent;
  const { run = '', ...context } = logs.context ?? {};
  const bindings = { run, ...context, ...(part && { part: part.index, parts: part.count }) };
  return isRunKind(task) ? logging.forRun(task, bindings) : logging.forModule('worker').child({ task, ...bindings });
}
const viaIpc = typeof process.send === 'function';
const reportTo = process.env[REPORT_TO_ENV];
// Imported only in a Job, so that an embedded worker does not load the Kubernetes client.
const statusReport =
  !viaIpc && reportTo
    ? statusReporter((await import('../../core/cluster/kubernetes/index.ts')).openKubernetesCluster(), {
        ...(JSON.parse(reportTo) as ReportTarget),
        ...(part && { part }),
      })
    : undefined;
/** The last message handed to the channel, settled once it was written out (and reported, in a Job). */
let sent: Promise<void> = Promise.resolve();
const send = (message: FromWorker) => {
  statusReport?.report(message);
  const written = new Promise<void>((resolve) => {
    if (viaIpc) process.send!(message, undefined, {}, () => resolve());
    else process.stdout.write(`${JSON.stringify(message)}\n`, () => resolve());
  });
  sent = Promise.all([written, statusReport?.flushed()]).then(() => undefined);
};
const controller = new AbortController();

/**
 * Ends the process once the last message is out. The exit is explicit: a task's libraries may keep handles open
 * (Icechunk's wasm build keeps its thread pool alive), and an attempt is over when its result is reported.
 */
async function exit(code: number): Promise<never> {
  await sent;
  logging?.close();
  process.exit(code);
}

/** Runs the task and returns whether it succeeded. */
async function run(task: string, input: unknown): Promise<boolean> {
  const log = runLog(task);
  const implementation = await loadTask(task);
  if (!implementation) {
    send({ type: 'error', errorType: 'UnknownTask', message: `no task named ${task}` });
    log.error(`no task named ${task}`);
    return false;
  }
  const started = performance.now();
  log.info({ task }, 'worker started');
  const seconds = () => Math.round(performance.now() - started) / 1000;
  try {
    const value = await implementation(input, {
      signal: controller.signal,
      throwIfCancelled: () => {
        if (controller.signal.aborted) throw new Cancelled();
      },
      progress: (done, total, message) => {
        send({ type: 'progress', done, total, message });
        log.info({ done, total }, message ?? 'progress');
      },
      ...(part && { part }),
    });
    send({ type: 'result', value: value ?? null });
    log.info({ result: value ?? null, seconds: seconds() }, 'worker succeeded');
    return true;
  } catch (err) {
    if (err instanceof Cancelled) {
      send({ type: 'cancelled' });
      log.info({ seconds: seconds() }, 'worker cancelled');
    } else {
      const [errorType, message] =
        err instanceof RunError
          ? [err.code, err.message]
          : (['WorkerError', err instanceof Error ? err.message : String(err)] as const);
      send({ type: 'error', errorType, message });
      log.error({ errorType, seconds: seconds(), ...(!(err instanceof RunError) && { err }) }, message);
    }
    return false;
  }
}

/** How long a worker whose runner died may take to stop between units of work before it ends anyway. */
const ORPHAN_GRACE_MS = 2_000;

if (viaIpc) {
  // The runner is gone (its process was killed): nobody can record this attempt any more, and the runner's
  // successor starts the attempt again on the same staging directory. Stop writing now.
  process.once('disconnect', () => {
    controller.abort();
    setTimeout(() => process.exit(1), ORPHAN_GRACE_MS).unref();
  });
  process.on('message', (message: ToWorker) => {
    if (message.type === 'cancel') controller.abort();
    if (message.type === 'start') void run(message.task, message.input).then((ok) => exit(ok ? 0 : 1));
  });
} else {
  const { values } = parseArgs({ options: { task: { type: 'string' }, input: { type: 'string', default: 'null' } } });
  if (!values.task) {
    console.error('usage: node operator/worker/main.ts --task NAME [--input JSON]');
    process.exit(2);
  }
  process.once('SIGTERM', () => controller.abort());
  // A Job's pod must fail when the attempt fails, so that the Job's own backoff and status see it.
  await exit((await run(values.task, JSON.parse(values.input))) ? 0 : 1);
}
