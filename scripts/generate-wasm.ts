/**
 * Assembles the WebAssembly kernels of `core/processing/kernels/wasm/` (`make wasm`): each `<name>.wat` becomes
 * `<name>.wasm.ts`, its module's bytes in base64, so the kernels load from the source tree like any module (no
 * binary to ship beside it, no build step at start). With --check it exits 1 when a committed module differs from
 * its source (`make verify`). wat2wasm is wabt's, from Debian (`make packaging-tools`).
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const dir = resolve(import.meta.dirname, '..', 'core', 'processing', 'kernels', 'wasm');
const check = process.argv.includes('--check');

async function assembled(source: string): Promise<string> {
  // Multi-memory and threads: a kernel may read a chunk in a shared memory of its caller's besides its own.
  const features = ['--enable-multi-memory', '--enable-threads'];
  const { stdout } = await run('wat2wasm', [...features, join(dir, source), '--output=-'], { encoding: 'buffer' });
  return [
    `// Generated from ${source} by scripts/generate-wasm.ts (make wasm); do not edit.`,
    // As Prettier writes it, so that `make lint` passes the generated file.
    'export const MODULE_BASE64 =',
    `  '${stdout.toString('base64')}';`,
    '',
  ].join('\n');
}

const problems: string[] = [];
for (const source of (await readdir(dir)).filter((f) => f.endsWith('.wat')).sort()) {
  const target = source.replace(/\.wat$/, '.wasm.ts');
  const text = await assembled(source);
  const current = await readFile(join(dir, target), 'utf8').catch(() => undefined);
  if (current === text) continue;
  if (check) problems.push(`${target}: ${current === undefined ? 'missing' : 'differs from its source'}`);
  else await writeFile(join(dir, target), text);
}
if (problems.length > 0) {
  console.error(`core/processing/kernels/wasm is out of date (run \`make wasm\`):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(check ? 'the WebAssembly kernels match their sources' : 'wrote the WebAssembly kernels');
