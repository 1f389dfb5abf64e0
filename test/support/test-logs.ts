import { existsSync, rmSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

const REPOSITORY = resolve(import.meta.dirname, '../..');

/** Where the servers of the test runs write what they would print (git-ignored). */
export const TEST_LOGS_DIR = join(REPOSITORY, '.test-logs');

/**
 * The log file of one test file: its path in the repository with `-` for `/` and `.log` added, flat under
 * `.test-logs/`, so that removing a passed file's log leaves no folder behind.
 */
export function testLogPath(testFile: string): string {
  return join(TEST_LOGS_DIR, `${relative(REPOSITORY, testFile).replaceAll(sep, '-')}.log`);
}

/**
 * Keeps the log file of each test file that failed, and names it after the run's summary; removes the others, so
 * that `.test-logs/` holds only what explains a failure.
 */
export class TestLogsReporter implements Reporter {
  #vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const kept: string[] = [];
    for (const testModule of testModules) {
      const path = testLogPath(testModule.moduleId);
      if (testModule.state() !== 'failed') rmSync(path, { force: true });
      else if (existsSync(path)) kept.push(relative(process.cwd(), path));
    }
    if (kept.length === 0) return;
    this.#vitest!.logger.error(
      `\nServer logs of the failed test files (what their servers and workers wrote to standard output):\n` +
        kept.map((path) => `  ${path}\n`).join(''),
    );
  }
}
