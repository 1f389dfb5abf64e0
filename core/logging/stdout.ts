import { pino, type DestinationStream } from 'pino';

/**
 * The environment variable naming a file that receives, in place of standard output, the lines a process would
 * write there. The test run sets it per test file (test/support/test-logs.ts), so that the servers under test, and
 * the processes they start, which inherit it, keep their lines out of the test output.
 */
export const LOG_STDOUT_FILE_ENV = 'STRATUS_LOG_STDOUT_FILE';

/** One descriptor per file for the whole process: every `createLogging` of a test file appends to the same one. */
const files = new Map<string, DestinationStream>();

/**
 * Where the lines meant for standard output go: the file `STRATUS_LOG_STDOUT_FILE` names (appended to, made with
 * its folder when missing), else standard output. An empty value counts as unset, so that a test can give back a
 * child process its standard output.
 */
export function standardOutput(env: NodeJS.ProcessEnv = process.env): DestinationStream {
  const path = env[LOG_STDOUT_FILE_ENV];
  if (!path) return process.stdout;
  let file = files.get(path);
  if (!file) {
    // Synchronous, so that the lines of a process that exits at once are not lost; several processes append to one
    // file, each line with one write.
    file = pino.destination({ dest: path, append: true, mkdir: true, sync: true });
    files.set(path, file);
  }
  return file;
}
