import { describe, expect, it } from 'vitest';
import { runProgram } from './kube-cli.ts';

describe('runProgram', () => {
  it('returns the exit code of a program that exits without reading its input, rather than crashing on EPIPE', async () => {
    const input = 'x'.repeat(20_000_000);
    const result = await runProgram(process.execPath, ['-e', 'process.stderr.write("quit"); process.exit(3)'], input);
    expect(result).toEqual({ code: 3, stdout: '', stderr: 'quit' });
  });

  it('hands the program its input and returns its output', async () => {
    const echo = 'process.stdin.pipe(process.stdout)';
    expect(await runProgram(process.execPath, ['-e', echo], 'kind: Namespace\n')).toMatchObject({
      code: 0,
      stdout: 'kind: Namespace\n',
    });
  });
});
