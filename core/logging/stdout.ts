import { createRequire } from 'node:module';
import type PinoPrettyModule from 'pino-pretty';
import { pino, type DestinationStream } from 'pino';
import { ConfigError } from '../config/index.ts';

/**
 * The environment variable naming a file that receives, in place of standard output, the lines a process would
 * write there. The test run sets it per test file (test/support/test-logs.ts), so that the servers under test, and
 * the processes they start, which inherit it, keep their lines out of the test output.
 */
export const LOG_STDOUT_FILE_ENV = 'STRATUS_LOG_STDOUT_FILE';

/** How the lines on standard output are written: `json` (one object a line) or `pretty` (a short line for people). */
export const LOG_FORMAT_ENV = 'STRATUS_LOG_FORMAT';

const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** One descriptor per file for the whole process: every `createLogging` of a test file appends to the same one. */
const files = new Map<string, DestinationStream>();
let pretty: DestinationStream | undefined;
// Loaded only for a person's terminal: every other process (workers, servers in containers) writes JSON and does
// not pay for the printer's modules at start.
const loadPretty = () => createRequire(import.meta.url)('pino-pretty') as typeof PinoPrettyModule;

/** `STRATUS_LOG_FORMAT` when set, else `pretty` for a terminal and `json` for anything else (a pipe, a file). */
export function logFormat(env: NodeJS.ProcessEnv, terminal: boolean): LogFormat {
  const format = env[LOG_FORMAT_ENV];
  if (!format) return terminal ? 'pretty' : 'json';
  if (!(LOG_FORMATS as readonly string[]).includes(format))
    throw new ConfigError(`${LOG_FORMAT_ENV}=${format} is not a log format: use json or pretty (docs/logging.md)`);
  return format as LogFormat;
}

/** Fields every line carries, or that the message line already says: the short line leaves them out. */
const SAID_ELSEWHERE = 'pid,hostname,app,module,reqId,xRequestID,sessionId,req,res,responseTime';

interface RequestFields {
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
}

/** `module: message`, and for a request's line its method, URL, status and time. */
function shortMessage(log: Record<string, unknown>, messageKey: string): string {
  const { req, res, responseTime } = log as RequestFields;
  const parts = [`${typeof log.module === 'string' ? `${log.module}: ` : ''}${String(log[messageKey] ?? '')}`];
  if (req) parts.push(`${req.method ?? ''} ${req.url ?? ''}`);
  if (res?.statusCode !== undefined) parts.push(String(res.statusCode));
  if (typeof responseTime === 'number') parts.push(`${responseTime.toFixed(1)} ms`);
  return parts.join(' ');
}

/**
 * Where the lines meant for standard output go: the file `STRATUS_LOG_STDOUT_FILE` names (appended to, made with
 * its folder when missing), else standard output, as JSON or, for a person at a terminal, as short lines (pino's
 * own pretty printer, in this process, writing synchronously so that a line logged just before an exit or before
 * the start banner is not overtaken). An empty file name counts as unset, so that a test can give back a child
 * process its standard output. Log files are always JSON: only this destination changes.
 */
export function standardOutput(env: NodeJS.ProcessEnv = process.env): DestinationStream {
  const path = env[LOG_STDOUT_FILE_ENV];
  if (!path) {
    if (logFormat(env, process.stdout.isTTY === true) === 'json') return process.stdout;
    pretty ??= loadPretty()({
      destination: 1,
      sync: true,
      colorize: process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss',
      ignore: SAID_ELSEWHERE,
      singleLine: true,
      messageFormat: shortMessage,
    });
    return pretty;
  }
  let file = files.get(path);
  if (!file) {
    // Synchronous, so that the lines of a process that exits at once are not lost; several processes append to one
    // file, each line with one write.
    file = pino.destination({ dest: path, append: true, mkdir: true, sync: true });
    files.set(path, file);
  }
  return file;
}
