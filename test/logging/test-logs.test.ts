import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOG_STDOUT_FILE_ENV } from '../../core/logging/stdout.ts';
import { testLogPath } from '../support/test-logs.ts';

const REPOSITORY = resolve(import.meta.dirname, '../..');
const FIXTURE = join(REPOSITORY, 'test/fixtures/test-logs/servers.fixture.ts');
const LOG = testLogPath(FIXTURE);
const MESSAGES = ['line of the test process', 'line of a child process'];

/** `vitest run` on the fixture, as `make test` runs a test file; resolves with its exit code and all it printed. */
function runFixture(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  // The outer run's variables would make the inner one a worker of it, and send its lines to this file's log.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== LOG_STDOUT_FILE_ENV),
  );
  const child = spawn(
    process.execPath,
    [join(REPOSITORY, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/fixtures/test-logs/vitest.config.ts'],
    { cwd: REPOSITORY, env: { ...inherited, ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, output })));
}

describe('server logs of a test run', () => {
  afterAll(() => rm(LOG, { force: true }));

  it('stay out of the output of a passing test file, and leave no file', async () => {
    const { code, output } = await runFixture({});
    expect(code, output).toBe(0);
    for (const message of MESSAGES) expect(output).not.toContain(message);
    await expect(readFile(LOG, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  }, 60_000);

  it('of a failing test file are kept in its file, which the output names, and stay out of the output', async () => {
    const { code, output } = await runFixture({ FIXTURE_FAILS: '1' });
    expect(code, output).toBe(1);
    for (const message of MESSAGES) expect(output).not.toContain(message);
    expect(output).toContain(relative(REPOSITORY, LOG));
    const lines = (await readFile(LOG, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; module: string });
    expect(lines.map((line) => [line.module, line.msg])).toEqual([
      ['api-server', MESSAGES[0]],
      ['worker', MESSAGES[1]],
    ]);
  }, 60_000);
});
