/**
 * Runs before each test file (vitest.config.ts `setupFiles`): the servers it starts, in process or as child
 * processes, which inherit the variable, write their standard-output log lines to the file's own log,
 * `.test-logs/<test file>.log`, instead of the test output. TestLogsReporter keeps it when the file fails.
 */
import { rmSync } from 'node:fs';
import { expect } from 'vitest';
import { LOG_STDOUT_FILE_ENV } from '../../core/logging/stdout.ts';
import { testLogPath } from './test-logs.ts';

const path = testLogPath(expect.getState().testPath!);
// A file left by an earlier run would mix its lines with this run's.
rmSync(path, { force: true });
process.env[LOG_STDOUT_FILE_ENV] = path;
