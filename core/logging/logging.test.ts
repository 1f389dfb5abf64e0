import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, parseInstanceConfig } from '../config/index.ts';
import { contextAnnotations, contextOf, sessionLogId, xRequestIdOf } from './context.ts';
import { createLogging } from './index.ts';
import { LOG_MODULES } from '../config/log-modules.ts';
import { RUN_LOG_FILES } from './runs.ts';
import { logSettings, workerLogEnv, workerLogging } from './settings.ts';

const lines = async (path: string) =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('logging', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'stratus-logs-'));
  });
  afterEach(async () => rm(home, { recursive: true, force: true }));

  const settingsOf = (properties: string, env: NodeJS.ProcessEnv = {}) =>
    logSettings(parseInstanceConfig(properties, 'stratus.properties'), { home, stdout: false, env });

  it('writes a run to the main log and the background file of its kind, with its request context', async () => {
    const logging = createLogging(settingsOf(''));
    logging
      .forRun('sync', { run: 'default/chirps-1', xRequestID: 'abc123', sessionId: 'f'.repeat(32) })
      .info({ dataset: 'chirps' }, 'synced');
    logging.forRun('feature-refresh', { run: 'default/districts-1' }).info('refreshed');
    logging.forModule('api-server').info('request');
    logging.close();
    expect((await readdir(join(home, 'logs'))).sort()).toEqual([
      'stratus-analytics-table.log',
      'stratus-data-exchange.log',
      'stratus-data-sync.log',
      'stratus.log',
    ]);
    const sync = await lines(join(home, 'logs', 'stratus-data-sync.log'));
    expect(sync).toEqual([
      expect.objectContaining({
        module: 'data-sync',
        kind: 'sync',
        run: 'default/chirps-1',
        xRequestID: 'abc123',
        sessionId: 'f'.repeat(32),
        msg: 'synced',
      }),
      expect.objectContaining({ module: 'data-sync', run: 'default/districts-1', xRequestID: '', sessionId: '' }),
    ]);
    const main = await lines(join(home, 'logs', 'stratus.log'));
    expect(main.map((l) => l.msg)).toEqual(['synced', 'refreshed', 'request']);
    expect(main[0]).toEqual(sync[0]);
    expect(await readFile(join(home, 'logs', 'stratus-data-exchange.log'), 'utf8')).toBe('');
  });

  it('maps every run kind to a background module', () => {
    for (const process of Object.values(RUN_LOG_FILES)) expect(Object.keys(LOG_MODULES)).toContain(process);
  });

  it('gives a module its own level, else its parent’s, else root’s', async () => {
    const logging = createLogging(
      settingsOf('logging.level.root = WARN\nlogging.level.operator = DEBUG\nlogging.level.data-sync = ERROR'),
    );
    logging.forModule('operator.jobs').debug('jobs debug');
    logging.forModule('operator').debug('operator debug');
    logging.forModule('api-server').info('api info');
    logging.forModule('api-server').warn('api warn');
    logging.forRun('ingestion', { run: 'r' }).warn('sync warn');
    logging.forRun('ingestion', { run: 'r' }).error('sync error');
    logging.root.info('root info');
    logging.close();
    expect((await lines(join(home, 'logs', 'stratus.log'))).map((l) => l.msg)).toEqual([
      'jobs debug',
      'operator debug',
      'api warn',
      'sync error',
    ]);
  });

  it('writes standard output only without a home', () => {
    const logging = createLogging({ ...settingsOf(''), home: undefined });
    logging.forRun('ingestion', { run: 'r' }).info('nowhere to file');
    logging.close();
  });

  it('stops startup naming the file that cannot be written', async () => {
    await writeFile(join(home, 'logs'), 'a file where the directory should be');
    expect(() => createLogging(settingsOf(''))).toThrow(ConfigError);
    expect(() => createLogging(settingsOf(''))).toThrow(
      /cannot write the log file .*logs\/stratus\.log: E(EXIST|NOTDIR)/,
    );
  });

  it('replaces the default destinations with the transport of STRATUS_LOG_CONFIG, keeping module levels', async () => {
    const out = join(home, 'custom.log');
    const configFile = join(home, 'log-config.json');
    await writeFile(
      configFile,
      JSON.stringify({
        level: 'warn',
        messageKey: 'message',
        timestamp: 'epochTime',
        transport: { targets: [{ target: 'pino/file', level: 'debug', options: { destination: out } }] },
      }),
    );
    const logging = createLogging(settingsOf('logging.level.operator = DEBUG', { STRATUS_LOG_CONFIG: configFile }));
    logging.forModule('operator').debug('operator debug');
    logging.forModule('api-server').info('api info');
    logging.forRun('sync', { run: 'r', xRequestID: 'x1' }).error('sync error');
    logging.close();
    const written = async () => (await readFile(out, 'utf8').catch(() => '')).split('\n').filter(Boolean);
    for (let i = 0; i < 100 && (await written()).length < 2; i++) await sleep(20);
    const got = (await written()).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(got.map((l) => l.message)).toEqual(['operator debug', 'sync error']);
    expect(typeof got[0]!.time).toBe('number');
    expect(got[1]).toMatchObject({ module: 'data-sync', xRequestID: 'x1' });
    // The defaults are replaced: no files under the home.
    expect(await readdir(home)).not.toContain('logs');
  });
});

describe('log context', () => {
  it.each([
    ['abc123XYZ', 'abc123XYZ'],
    ['bad id\r\n<x>', ''],
    ['with-dash', ''],
    [undefined, ''],
    [['a', 'b'], ''],
    ['x'.repeat(65), ''],
  ])('takes X-Request-ID %j as xRequestID %j', (header, want) => {
    expect(xRequestIdOf(header)).toBe(want);
  });

  it('hashes a session, and carries a request’s context through a run’s annotations', () => {
    const sessionId = sessionLogId('cookie-value');
    expect(sessionId).toMatch(/^[a-f0-9]{32}$/);
    expect(sessionId).not.toContain('cookie');
    const annotations = contextAnnotations({ xRequestID: 'req42', sessionId });
    expect(contextOf({ metadata: { annotations } })).toEqual({ xRequestID: 'req42', sessionId });
    expect(contextAnnotations({ xRequestID: '', sessionId: '' })).toEqual({});
    expect(
      contextOf({
        metadata: {
          annotations: { 'climate.stratus.dev/x-request-id': 'a b', 'climate.stratus.dev/session-id': 'cookie' },
        },
      }),
    ).toEqual({ xRequestID: '', sessionId: '' });
  });

  it('hands a worker its settings and its run’s context through the environment', () => {
    const settings = logSettings(parseInstanceConfig('logging.file.max_archives = 4', 'f'), { home: '/h' });
    const env = workerLogEnv(settings, { run: 'ns/r', job: 'r-a1', xRequestID: 'q1', sessionId: '' });
    expect(workerLogging(env)).toEqual({
      settings,
      context: { run: 'ns/r', job: 'r-a1', xRequestID: 'q1', sessionId: '' },
    });
    expect(workerLogging({})).toEqual({});
  });
});

describe('docs/logging.md', () => {
  it('documents every module and every background file', async () => {
    const docs = await readFile(resolve(import.meta.dirname, '../../docs/logging.md'), 'utf8');
    for (const module of Object.keys(LOG_MODULES)) expect(docs, module).toContain(`| \`${module}\` |`);
    for (const process of new Set(Object.values(RUN_LOG_FILES))) expect(docs).toContain(`stratus-${process}.log`);
  });
});
