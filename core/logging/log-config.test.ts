import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/index.ts';
import { loadLogConfig } from './log-config.ts';

describe('STRATUS_LOG_CONFIG', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-log-config-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  const load = async (text: string) => {
    const path = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(path, text);
    return { path, load: () => loadLogConfig({ STRATUS_LOG_CONFIG: path }) };
  };

  it('is optional', () => {
    expect(loadLogConfig({})).toBeUndefined();
  });

  it('accepts pino options and transport targets, resolving a relative target from the file', async () => {
    await writeFile(join(dir, 'my-transport.mjs'), 'export default () => {};\n');
    const { load: read } = await load(
      JSON.stringify({
        level: 'debug',
        redact: ['req.headers.authorization'],
        transport: {
          targets: [
            { target: 'pino/file', options: { destination: 1 } },
            { target: './my-transport.mjs', level: 'warn' },
          ],
        },
      }),
    );
    const config = read()!;
    expect(config.level).toBe('debug');
    expect(config.transport).toEqual({
      targets: [
        { target: 'pino/file', options: { destination: 1 } },
        { target: join(dir, 'my-transport.mjs'), level: 'warn' },
      ],
    });
  });

  it.each([
    ['{\n  "level": "info",\n  "messageKey" "msg"\n}', /:3:16: not JSON: Expected ':' after property name/],
    ['{\n  "level": "info",\n', /:3:1: not JSON/],
    ['', /:1:1: not JSON/],
    ['{"levle": "info"}', /\(file\): Unrecognized key: "levle"/],
    ['{"level": "loud"}', /level: unknown level loud; levels: trace, debug, info/],
    ['{"timestamp": "sometimes"}', /timestamp: /],
    [
      '{"transport": {"targets": [{"target": "no-such-transport-package"}]}}',
      /transport.targets.0.target: cannot find no-such-transport-package/,
    ],
    ['{"transport": {"target": "pino/file", "level": "chatty"}}', /transport.level: unknown level chatty/],
  ])('refuses %j, naming the file and what is wrong', async (text, why) => {
    const { path, load: read } = await load(text);
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(new RegExp(`STRATUS_LOG_CONFIG ${path.replace(/[.]/g, '\\.')}`));
    expect(read).toThrow(why);
  });

  it('refuses a file it cannot read', () => {
    expect(() => loadLogConfig({ STRATUS_LOG_CONFIG: join(dir, 'missing.json') })).toThrow(
      /cannot read the log configuration STRATUS_LOG_CONFIG .*missing\.json: ENOENT/,
    );
  });
});
