import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/index.ts';
import { logFormat } from './stdout.ts';

const run = promisify(execFile);
const CHILD = resolve(import.meta.dirname, '../../test/fixtures/logging/log-lines.ts');
// Colours and the terminal's carriage returns are not what is asserted.
const plain = (text: string) => stripVTControlCharacters(text).replace(/\r/g, '');

let home: string;
afterEach(() => rm(home, { recursive: true, force: true }));

/** What the child writes to standard output: under a pseudo-terminal (`script`, util-linux) or into a pipe. */
async function output(terminal: boolean, format?: string): Promise<string> {
  home = await mkdtemp(join(tmpdir(), 'stratus-stdout-'));
  const env = { ...process.env, STRATUS_LOG_STDOUT_FILE: '', STRATUS_LOG_FORMAT: format ?? '' };
  const command = [process.execPath, CHILD, home];
  const { stdout } = terminal
    ? await run('script', ['-qec', command.map((part) => `'${part}'`).join(' '), '/dev/null'], { env })
    : await run(command[0]!, command.slice(1), { env });
  return plain(stdout);
}

async function fileLines(): Promise<unknown[]> {
  return (await readFile(join(home, 'logs', 'stratus.log'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

describe('standard output', () => {
  it('shows a terminal short lines: time, level, module, message, a request in one line; the log file keeps JSON', async () => {
    const lines = (await output(true)).trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: api-server: dataset published \{"dataset":"sample"\}$/);
    expect(lines[1]).toMatch(
      /^\[\d\d:\d\d:\d\d\] INFO: api-server: request completed GET \/datasets\/sample 200 3\.3 ms$/,
    );
    expect(await fileLines()).toMatchObject([
      { level: 30, module: 'api-server', msg: 'dataset published', dataset: 'sample' },
      { level: 30, module: 'api-server', msg: 'request completed', req: { url: '/datasets/sample' } },
    ]);
  });

  it.each([
    ['a pipe', false, undefined],
    ['a terminal with STRATUS_LOG_FORMAT=json', true, 'json'],
  ])('writes JSON lines to %s', async (_name, terminal, format) => {
    const lines = (await output(terminal, format)).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toMatchObject([
      { msg: 'dataset published' },
      { msg: 'request completed' },
    ]);
  });

  it('writes short lines into a pipe with STRATUS_LOG_FORMAT=pretty, and refuses a format it does not know', async () => {
    expect(await output(false, 'pretty')).toContain('INFO: api-server: dataset published');
    expect(() => logFormat({ STRATUS_LOG_FORMAT: 'yaml' }, true)).toThrow(ConfigError);
  });
});
