import type { ChildProcess } from 'node:child_process';
import { eventually } from './eventually.ts';

/**
 * Collects what a spawned `stratus embedded` prints (standard output and error) and resolves once its start banner
 * is complete, with the URL of its landing page (no trailing slash) and the output so far.
 */
export async function awaitBanner(child: ChildProcess): Promise<{ url: string; output: string }> {
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`embedded mode exited:\n${output}`);
      return /Press Ctrl\+C/.test(output) ? /landing page +(\S+)\/\n/.exec(output)?.[1] : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  return { url, output };
}
