/**
 * scripts/e2e.sh (make e2e) needs a Docker engine and kind, which CI machines here lack: its cluster path cannot
 * run in the tests. What can: shellcheck over all of it, and its skip path, with a `docker` that fails standing in
 * for an engine that does not answer (so the test never starts a cluster where Docker does work).
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const script = join(import.meta.dirname, '../../scripts/e2e.sh');
const fakeBin = await mkdtemp(join(tmpdir(), 'stratus-e2e-bin-'));

afterAll(() => rm(fakeBin, { recursive: true, force: true }));

describe('scripts/e2e.sh', () => {
  it('passes shellcheck', async () => {
    const result = await run('shellcheck', [script]).catch((err: { stdout: string }) => err);
    expect(result.stdout).toBe('');
  });

  it('skips with exit code 0 and says why when no Docker engine answers', async () => {
    await writeFile(join(fakeBin, 'docker'), '#!/bin/sh\necho "Cannot connect to the Docker daemon" >&2\nexit 1\n');
    await chmod(join(fakeBin, 'docker'), 0o755);
    // The fake docker first on PATH; a failing `kind` after it would make the test fail loudly if it got that far.
    await writeFile(join(fakeBin, 'kind'), '#!/bin/sh\necho "kind must not run" >&2\nexit 3\n');
    await chmod(join(fakeBin, 'kind'), 0o755);
    const { stdout, stderr } = await run('bash', [script], {
      env: { ...process.env, PATH: `${fakeBin}:${process.env.PATH}` },
    });
    expect(stdout).toBe('SKIP e2e: no Docker engine answers (docker info failed); kind needs one.\n');
    expect(stderr).toBe('');
  });
});
