import { z } from 'zod';
import type { InstanceConfig } from '../config/index.ts';
import { xRequestIdOf, type LogContext } from './context.ts';
import { loadLogConfig, logConfigSchema } from './log-config.ts';
import { LOG_LEVELS } from '../config/log-modules.ts';

/**
 * Everything a process logs by: from the instance configuration and `STRATUS_LOG_CONFIG` in the API server, the
 * operator and embedded mode, and handed to each worker process whole (`WORKER_LOGGING_ENV`), so that every
 * writer of one file rolls it at the same size and keeps as many archives, and a worker needs neither file.
 */
export const logSettingsSchema = z.object({
  /** `$STRATUS_HOME`: files go to `<home>/logs`; without it, no files. */
  home: z.string().optional(),
  /** Whether lines also go to standard output. */
  stdout: z.boolean(),
  rollSizeBytes: z.number().int().positive(),
  maxArchives: z.number().int().min(0),
  levels: z.record(z.string(), z.enum(LOG_LEVELS)),
  /** A `STRATUS_LOG_CONFIG` file, checked: it replaces the destinations above. */
  config: logConfigSchema.optional(),
});

export type LogSettings = z.infer<typeof logSettingsSchema>;

/** A process's settings from the instance configuration and the environment (`STRATUS_LOG_CONFIG`). */
export function logSettings(
  config: InstanceConfig,
  options: { home: string | undefined; stdout?: boolean; env?: NodeJS.ProcessEnv },
): LogSettings {
  const file = loadLogConfig(options.env ?? process.env);
  return {
    ...(options.home && { home: options.home }),
    stdout: options.stdout ?? true,
    rollSizeBytes: config.logging.rollSizeBytes,
    maxArchives: config.logging.maxArchives,
    levels: config.logging.levels as Record<string, (typeof LOG_LEVELS)[number]>,
    ...(file && { config: file }),
  };
}

/** How a job runner tells a worker process how to log: its `LogSettings` as JSON. */
export const WORKER_LOGGING_ENV = 'STRATUS_WORKER_LOGGING';
/** And which run the worker does, for whom: `{run, job, xRequestID, sessionId}` as JSON. */
export const RUN_CONTEXT_ENV = 'STRATUS_RUN_CONTEXT';

export interface RunContext extends LogContext {
  /** The run, `<namespace>/<name>`. */
  run: string;
  /** The attempt. */
  job: string;
}

const runContextSchema = z.object({
  run: z.string(),
  job: z.string(),
  xRequestID: z.string(),
  sessionId: z.string(),
});

/** The environment of a worker process: its log settings and its run's context. */
export function workerLogEnv(settings: LogSettings | undefined, context: RunContext): Record<string, string> {
  return {
    ...(settings && { [WORKER_LOGGING_ENV]: JSON.stringify(settings) }),
    [RUN_CONTEXT_ENV]: JSON.stringify(context),
  };
}

/**
 * A worker's settings and run context from its environment. A worker started without settings (by hand, or by a
 * test) does not log; one whose settings do not parse says so and does not log either, since its run matters more.
 */
export function workerLogging(env: NodeJS.ProcessEnv): { settings?: LogSettings; context?: RunContext } {
  const parse = <T>(name: string, schema: z.ZodType<T>): T | undefined => {
    const raw = env[name];
    if (!raw) return undefined;
    let why: string;
    try {
      const parsed = schema.safeParse(JSON.parse(raw));
      if (parsed.success) return parsed.data;
      why = `${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`;
    } catch (err) {
      why = (err as Error).message;
    }
    process.stderr.write(`${name} is not usable (${why}): this worker does not log\n`);
    return undefined;
  };
  const context = parse(RUN_CONTEXT_ENV, runContextSchema);
  return {
    settings: parse(WORKER_LOGGING_ENV, logSettingsSchema),
    ...(context && { context: { ...context, xRequestID: xRequestIdOf(context.xRequestID) } }),
  };
}
