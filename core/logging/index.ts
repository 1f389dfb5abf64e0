import { hostname } from 'node:os';
import { join } from 'node:path';
import { pino, type DestinationStream, type Logger, type LoggerOptions, type StreamEntry } from 'pino';
import { ConfigError } from '../config/index.ts';
import type { LogConfig } from './log-config.ts';
import {
  BACKGROUND_PROCESSES,
  configuredLevel,
  type BackgroundProcess,
  type LogModule,
} from '../config/log-modules.ts';
import { RollingFile } from './rolling-file.ts';
import { RUN_LOG_FILES, type RunKind } from './runs.ts';
import type { LogSettings } from './settings.ts';
import { standardOutput } from './stdout.ts';

export type { Logger } from 'pino';
export type { LogContext } from './context.ts';
export type { BackgroundProcess, LogModule } from '../config/log-modules.ts';
export type { RunKind } from './runs.ts';
export type { LogSettings } from './settings.ts';

/** What the lines of a run carry besides its module: the run, and the context of the request that started it. */
export interface RunBindings {
  /** `<namespace>/<name>` of the run. */
  run: string;
  xRequestID?: string;
  sessionId?: string;
  [key: string]: unknown;
}

export interface Logging {
  root: Logger;
  /** The logger of one module (modules.ts), at the level `logging.level.<module>` or a parent's sets. */
  forModule(module: LogModule): Logger;
  /**
   * The logger of one run: its lines go to the main log and to the background file of its kind (runs.ts), under
   * that file's module and level, and carry the run and its request's `xRequestID` and `sessionId`.
   */
  forRun(kind: RunKind, bindings: RunBindings): Logger;
  /** What this process logs by; a job runner hands it to the workers it starts. */
  settings: LogSettings;
  /** Writes what is buffered and closes the files. */
  close(): void;
}

const pinoLevel = { DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/** The defaults a `STRATUS_LOG_CONFIG` file's options are laid over. */
const defaultOptions: LoggerOptions = {
  base: { app: 'stratus', pid: process.pid, hostname: hostname() },
  timestamp: pino.stdTimeFunctions.isoTime,
};

/** pino options from a checked `STRATUS_LOG_CONFIG` file (names of time functions become the functions). */
function optionsOf(config: LogConfig): LoggerOptions {
  const { timestamp, ...rest } = config;
  return {
    ...defaultOptions,
    ...(rest as LoggerOptions),
    ...(timestamp !== undefined && {
      timestamp: typeof timestamp === 'string' ? pino.stdTimeFunctions[timestamp] : timestamp,
    }),
  };
}

/**
 * The loggers of one process. By default lines go to standard output (or the file `STRATUS_LOG_STDOUT_FILE` names
 * in its place) and to `<home>/logs/stratus.log`, and the lines of runs also to `stratus-<process>.log`, each file
 * a `RollingFile` shared with the installation's other processes. A `STRATUS_LOG_CONFIG` file replaces those
 * destinations with its transport (its options are laid over the defaults); module levels apply either way. A home
 * whose files cannot be written stops startup.
 */
export function createLogging(settings: LogSettings): Logging {
  const files = new Map<string, RollingFile>();
  const file = (name: string): RollingFile => {
    const path = join(settings.home!, 'logs', name);
    let rolling = files.get(path);
    if (!rolling) {
      try {
        rolling = new RollingFile(path, { limitBytes: settings.rollSizeBytes, maxArchives: settings.maxArchives });
      } catch (err) {
        throw new ConfigError(
          `cannot write the log file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; ` +
            'STRATUS_HOME must name a directory this process may write (docs/logging.md)',
        );
      }
      files.set(path, rolling);
    }
    return rolling;
  };
  const fallback = settings.config?.level ?? 'info';
  const levelOf = (module: LogModule) => {
    const level = configuredLevel(module, settings.levels);
    return level ? pinoLevel[level] : fallback;
  };

  let root: Logger;
  let background: (process: BackgroundProcess) => Logger;
  if (settings.config) {
    root = pino(optionsOf(settings.config));
    background = () => root;
  } else {
    // The lowest level here: each logger's own level decides what reaches the destinations.
    const entry = (stream: DestinationStream): StreamEntry => ({ level: 'trace', stream });
    const main = [
      ...(settings.stdout ? [entry(standardOutput())] : []),
      ...(settings.home ? [entry(file('stratus.log'))] : []),
    ];
    const make = (streams: StreamEntry[]) => pino({ ...defaultOptions, level: 'trace' }, pino.multistream(streams));
    root = make(main);
    const own = new Map<BackgroundProcess, Logger>();
    background = (process) => {
      let logger = own.get(process);
      if (!logger) {
        logger = make(settings.home ? [...main, entry(file(`stratus-${process}.log`))] : main);
        own.set(process, logger);
      }
      return logger;
    };
  }
  // Every background file exists from the start, as spec 3 lists them, even before its first run.
  if (settings.home && !settings.config) for (const process of BACKGROUND_PROCESSES) background(process);
  root.level = levelOf('root');

  return {
    root,
    settings,
    forModule: (module) => root.child({ module }, { level: levelOf(module) }),
    forRun: (kind, { xRequestID = '', sessionId = '', ...bindings }) => {
      const process = RUN_LOG_FILES[kind];
      return background(process).child(
        { module: process, kind, ...bindings, xRequestID, sessionId },
        { level: levelOf(process) },
      );
    },
    close: () => {
      for (const rolling of files.values()) rolling.close();
      files.clear();
    },
  };
}
