import type { BackgroundProcess } from '../config/log-modules.ts';

/**
 * Which background file each kind of run writes (spec 3, DESIGN.md §6), in the operator that handles the run and in
 * its workers. A new kind of run names itself here and logs through `Logging.forRun(kind, ...)`; nothing else
 * decides where its lines go.
 */
export const RUN_LOG_FILES = {
  ingestion: 'data-sync',
  sync: 'data-sync',
  'feature-refresh': 'data-sync',
  delivery: 'data-exchange',
  processing: 'analytics-table',
  'catalogue-build': 'analytics-table',
  'analytics-table': 'analytics-table',
} as const satisfies Record<string, BackgroundProcess>;

export type RunKind = keyof typeof RUN_LOG_FILES;

export function isRunKind(name: string): name is RunKind {
  return Object.hasOwn(RUN_LOG_FILES, name);
}
