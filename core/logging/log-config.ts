import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigError } from '../config/index.ts';

/** The environment variable naming a pino configuration file that replaces the default destinations. */
export const LOG_CONFIG_ENV = 'STRATUS_LOG_CONFIG';

const PINO_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

const target = z.strictObject({
  target: z.string().min(1).describe('A package name, or a path (relative paths are from the file).'),
  level: z.string().optional(),
  options: z.record(z.string(), z.unknown()).optional(),
});

/**
 * What a `STRATUS_LOG_CONFIG` file may hold: the pino options that JSON can express, and `transport` with one
 * target or several. Anything else is refused by name, so that a misspelt option is not silently ignored.
 */
export const logConfigSchema = z
  .strictObject({
    level: z.string(),
    name: z.string(),
    msgPrefix: z.string(),
    messageKey: z.string(),
    errorKey: z.string(),
    nestedKey: z.string(),
    base: z.record(z.string(), z.unknown()).nullable(),
    timestamp: z.union([z.boolean(), z.enum(['isoTime', 'epochTime', 'unixTime', 'nullTime'])]),
    redact: z.union([
      z.array(z.string()),
      z.strictObject({ paths: z.array(z.string()), censor: z.string().optional(), remove: z.boolean().optional() }),
    ]),
    customLevels: z.record(z.string(), z.number().int()),
    useOnlyCustomLevels: z.boolean(),
    depthLimit: z.number().int().positive(),
    edgeLimit: z.number().int().positive(),
    crlf: z.boolean(),
    enabled: z.boolean(),
    transport: z.union([
      target,
      z.strictObject({
        targets: z.array(target).min(1),
        dedupe: z.boolean().optional(),
        levels: z.record(z.string(), z.number().int()).optional(),
      }),
    ]),
  })
  .partial()
  .superRefine((config, ctx) => {
    const levels = [...(config.useOnlyCustomLevels ? [] : PINO_LEVELS), ...Object.keys(config.customLevels ?? {})];
    const check = (level: string | undefined, path: (string | number)[]) => {
      if (level !== undefined && !levels.includes(level))
        ctx.addIssue({ code: 'custom', path, message: `unknown level ${level}; levels: ${levels.join(', ')}` });
    };
    check(config.level, ['level']);
    const transport = config.transport;
    if (transport && 'targets' in transport)
      transport.targets.forEach((t, i) => check(t.level, ['transport', 'targets', i, 'level']));
    else check(transport?.level, ['transport', 'level']);
  });

export type LogConfig = z.infer<typeof logConfigSchema>;

/** Line and column of a character offset, from 1. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `${before.length}:${before.at(-1)!.length + 1}`;
}

const require = createRequire(import.meta.url);

/** The target as pino loads it: a package it can resolve, or an absolute path; undefined when there is none. */
function resolveTarget(name: string, fromDir: string): string | undefined {
  if (name.startsWith('file:')) return existsSync(fileURLToPath(name)) ? name : undefined;
  if (isAbsolute(name) || name.startsWith('.')) {
    const path = resolve(fromDir, name);
    return existsSync(path) ? path : undefined;
  }
  try {
    require.resolve(name);
    return name;
  } catch {
    return undefined;
  }
}

/**
 * Reads and checks the file `STRATUS_LOG_CONFIG` names; undefined when it names none. Every problem stops
 * startup with a `ConfigError` naming the file: a file that cannot be read, JSON that does not parse (with line
 * and column), an option pino does not take or a value of the wrong type (with its path), a level pino does not
 * know, or a transport target that cannot be found.
 */
export function loadLogConfig(env: NodeJS.ProcessEnv = process.env): LogConfig | undefined {
  const path = env[LOG_CONFIG_ENV];
  if (!path) return undefined;
  const name = `${LOG_CONFIG_ENV} ${path}`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read the log configuration ${name}: ${(err as NodeJS.ErrnoException).code}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message.replace(/ \(line \d+ column \d+\)$/, '');
    const offset = /at position (\d+)/.exec(message)?.[1];
    const where =
      offset === undefined
        ? text.trim() === ''
          ? '1:1'
          : lineColumn(text, text.length)
        : lineColumn(text, Number(offset));
    throw new ConfigError(`invalid log configuration ${name}:${where}: not JSON: ${message}`);
  }
  const parsed = logConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`);
    throw new ConfigError(`invalid log configuration ${name}:\n  ${issues.join('\n  ')}`);
  }
  const config = parsed.data;
  const targets = config.transport && ('targets' in config.transport ? config.transport.targets : [config.transport]);
  const missing: string[] = [];
  for (const [i, t] of (targets ?? []).entries()) {
    const resolved = resolveTarget(t.target, dirname(resolve(path)));
    if (resolved === undefined)
      missing.push(`transport${'targets' in config.transport! ? `.targets.${i}` : ''}.target: cannot find ${t.target}`);
    else t.target = resolved;
  }
  if (missing.length > 0) throw new ConfigError(`invalid log configuration ${name}:\n  ${missing.join('\n  ')}`);
  return config;
}
