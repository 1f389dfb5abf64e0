/**
 * scripts/e2e.sh (make e2e) needs a Docker engine and kind, which CI machines here lack, and without one it runs
 * scripts/e2e-node.sh on the real test node (minutes, root): neither cluster path runs in the unit tests. What can:
 * shellcheck over both scripts, and the choice between them, with a `docker` that fails standing in for an engine
 * that does not answer and a `bash` that only says what it was asked to run.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const scripts = join(import.meta.dirname, '../../scripts');
const script = join(scripts, 'e2e.sh');
const fakeBin = await mkdtemp(join(tmpdir(), 'stratus-e2e-bin-'));

afterAll(() => rm(fakeBin, { recursive: true, force: true }));

describe('scripts/e2e.sh', () => {
  it.each(['e2e.sh', 'e2e-node.sh'])('%s passes shellcheck', async (name) => {
    const result = await run('shellcheck', [join(scripts, name)]).catch((err: { stdout: string }) => err);
    expect(result.stdout).toBe('');
  });

  it('runs the end to end on the test node, and says why, when no Docker engine answers', async () => {
    await writeFile(join(fakeBin, 'docker'), '#!/bin/sh\necho "Cannot connect to the Docker daemon" >&2\nexit 1\n');
    // kind must not run; the `bash` the script hands over to only prints what it would run.
    await writeFile(join(fakeBin, 'kind'), '#!/bin/sh\necho "kind must not run" >&2\nexit 3\n');
    await writeFile(join(fakeBin, 'bash'), '#!/bin/sh\necho "bash $*"\n');
    for (const name of ['docker', 'kind', 'bash']) await chmod(join(fakeBin, name), 0o755);
    const { stdout, stderr } = await run('/bin/bash', [script], {
      env: { ...process.env, PATH: `${fakeBin}:${process.env.PATH}` },
    });
    expect(stdout).toBe(
      '>> no Docker engine answers (docker info failed), which kind needs: end to end on the test node instead\n' +
        `bash ${scripts}/e2e-node.sh\n`,
    );
    expect(stderr).toBe('');
  });
});
