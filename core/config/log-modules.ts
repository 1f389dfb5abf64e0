/**
 * Every logger Stratus has, by module: the one list `logging.level.<module>` is checked against, `forModule` takes
 * its names from, and docs/logging.md documents (a test compares them). A dotted name is a sub-module: without a
 * level of its own it takes its parent's (`operator.jobs` follows `operator`), and every module follows `root`.
 */
export const LOG_MODULES = {
  root: 'Every module that has no level of its own.',
  embedded: 'Embedded mode: startup, manifests applied at start, configuration warnings.',
  'api-server': 'The API server: one line per request at arrival and completion, and its services.',
  operator: 'The operator: controllers, reconcile outcomes, watches, resyncs, startup.',
  'operator.jobs': 'The job runners: worker Jobs (Kubernetes) and worker processes (embedded mode).',
  'operator.leader-election': 'The Lease campaign of the operator in Kubernetes mode.',
  worker: 'Worker processes: lines that belong to no run (a process that cannot start its task).',
  'data-sync': 'Ingestion, sync and feature refresh runs: the operator handling them and their workers.',
  'data-exchange': 'Deliveries of exports to their targets.',
  'analytics-table': 'Processing jobs and catalogue builds.',
} as const;

export type LogModule = keyof typeof LOG_MODULES;

/** Background processes with a file of their own, `stratus-<process>.log`, besides the main `stratus.log` (spec 3). */
export const BACKGROUND_PROCESSES = ['data-sync', 'data-exchange', 'analytics-table'] as const satisfies LogModule[];

export type BackgroundProcess = (typeof BACKGROUND_PROCESSES)[number];

export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogModule(name: string): name is LogModule {
  return Object.hasOwn(LOG_MODULES, name);
}

/**
 * The level configured for `module`: its own, else its nearest configured parent's, else `root`'s; undefined when
 * none is, and the default level applies (INFO, or the level of a `STRATUS_LOG_CONFIG` file).
 */
export function configuredLevel(module: LogModule, levels: Partial<Record<string, LogLevel>>): LogLevel | undefined {
  for (let name: string = module; ; name = name.slice(0, name.lastIndexOf('.'))) {
    const level = levels[name];
    if (level) return level;
    if (!name.includes('.')) break;
  }
  return levels.root;
}
