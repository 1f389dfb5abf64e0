import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseInstanceConfig } from '../config/index.ts';
import { createLogging } from './index.ts';
import { RollingFile } from './rolling-file.ts';

describe('logging', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'stratus-logs-'));
  });
  afterEach(async () => rm(home, { recursive: true, force: true }));

  it('rolls at the limit and keeps at most max_archives archives', async () => {
    const file = new RollingFile(join(home, 'x.log'), 100, 2);
    for (let i = 0; i < 10; i++) file.write(`${String(i).padStart(2, '0')}${'.'.repeat(37)}\n`); // 40 bytes a line
    file.close();
    expect((await readdir(home)).sort()).toEqual(['x.log', 'x.log.1', 'x.log.2']);
    expect(await readFile(join(home, 'x.log'), 'utf8')).toMatch(/^08.*\n09.*\n$/);
    expect(await readFile(join(home, 'x.log.1'), 'utf8')).toMatch(/^06/);
    for (const name of await readdir(home)) expect((await readFile(join(home, name))).length).toBeLessThanOrEqual(100);
  });

  it('starts the file over when no archives are kept', async () => {
    const file = new RollingFile(join(home, 'y.log'), 50, 0);
    for (let i = 0; i < 5; i++) file.write(`line ${i} ${'-'.repeat(12)}\n`);
    file.close();
    expect(await readdir(home)).toEqual(['y.log']);
    expect(await readFile(join(home, 'y.log'), 'utf8')).toBe('line 4 ------------\n');
  });

  it('writes background lines to the main log and their own file, with per-module levels', async () => {
    const config = parseInstanceConfig('logging.level.data-sync = DEBUG\nlogging.level.quiet = ERROR', 'f');
    const logging = createLogging({ config, home, stdout: false });
    logging.forBackground('data-sync').debug({ dataset: 'd' }, 'synced');
    logging.forModule('quiet').info('hidden');
    logging.forModule('quiet').error('shown');
    logging.close();
    const main = await readFile(join(home, 'logs', 'stratus.log'), 'utf8');
    const sync = await readFile(join(home, 'logs', 'stratus-data-sync.log'), 'utf8');
    expect(sync).toMatch(/"module":"data-sync".*"msg":"synced"/);
    expect(main).toMatch(/"msg":"synced"/);
    expect(main).toMatch(/"msg":"shown"/);
    expect(main).not.toMatch(/hidden/);
  });
});
