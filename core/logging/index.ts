import { join } from 'node:path';
import { pino, type Logger, type StreamEntry } from 'pino';
import type { InstanceConfig } from '../config/index.ts';
import { RollingFile } from './rolling-file.ts';

export type { Logger } from 'pino';

/** Background processes with a log file of their own (spec 3), besides the main `stratus.log`. */
export type BackgroundProcess = 'data-sync' | 'data-exchange' | 'analytics-table';

export interface Logging {
  root: Logger;
  /** A logger for one module, at the level `logging.level.<module>` sets (else the root level). */
  forModule(module: string): Logger;
  /** A logger whose lines go to the main log and to `stratus-<process>.log`. */
  forBackground(process: BackgroundProcess): Logger;
  close(): void;
}

export interface LoggingOptions {
  config: InstanceConfig;
  /** `$STRATUS_HOME`; logs go to `<home>/logs`. Without it, logs go to standard output only. */
  home?: string;
  stdout?: boolean;
  level?: string;
}

const pinoLevel = { DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

export function createLogging(options: LoggingOptions): Logging {
  const { config } = options;
  const files: RollingFile[] = [];
  const file = (name: string) => {
    const rolling = new RollingFile(
      join(options.home!, 'logs', name),
      config.logging.rollSizeBytes,
      config.logging.maxArchives,
    );
    files.push(rolling);
    return rolling;
  };
  const base: StreamEntry[] = [];
  if (options.stdout !== false) base.push({ level: 'debug', stream: process.stdout });
  if (options.home) base.push({ level: 'debug', stream: file('stratus.log') });
  const level = options.level ?? 'info';
  const make = (streams: StreamEntry[]) =>
    pino({ level, base: { app: 'stratus' }, timestamp: pino.stdTimeFunctions.isoTime }, pino.multistream(streams));
  const root = make(base);
  const levelFor = (module: string) => {
    const configured = config.logging.levels[module];
    return configured ? pinoLevel[configured] : level;
  };
  return {
    root,
    forModule: (module) => root.child({ module }, { level: levelFor(module) }),
    forBackground: (process) => {
      const own = options.home ? [{ level: 'debug' as const, stream: file(`stratus-${process}.log`) }] : [];
      return make([...base, ...own]).child({ module: process }, { level: levelFor(process) });
    },
    close: () => files.forEach((f) => f.close()),
  };
}
