import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { eventually } from './eventually.ts';

const REPOSITORY = resolve(import.meta.dirname, '../..');

export interface ApiProcess {
  url: string;
  stop(): Promise<void>;
}

/**
 * `node cmd/stratus.ts api-server` configured by its environment, as the chart's pod is; resolves once it listens.
 * For the tests of several API server processes over one cluster.
 */
export async function startApiServerProcess(env: Record<string, string>): Promise<ApiProcess> {
  const child: ChildProcess = spawn(process.execPath, [join(REPOSITORY, 'cmd/stratus.ts'), 'api-server'], {
    cwd: REPOSITORY,
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  const url = await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`the API server exited:\n${output}`);
      return /Stratus API server on (\S+)/.exec(output)?.[1];
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  ).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
