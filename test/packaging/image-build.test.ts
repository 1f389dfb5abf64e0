/**
 * The container image, built from the Dockerfile as it stands and run. There is no Docker engine here and Docker
 * Hub is out of reach, so scripts/build-image-offline.sh builds it with buildah on a stand-in for the base image
 * (Debian trixie with the project's Node 24). The image then runs its default embedded mode as the non-root user:
 * the worker ingests the sample source inside the image and the API server serves the store.
 */
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { freePort } from '../../scripts/free-port.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const TAG = 'localhost/stratus:test';
const buildah = (...args: string[]) => run('buildah', ['--storage-driver', 'vfs', ...args], { maxBuffer: 1 << 24 });

describe('the container image', { timeout: 600_000 }, () => {
  let container: string | undefined;

  beforeAll(async () => {
    await run('bash', [join(root, 'scripts/build-image-offline.sh'), TAG], {
      env: { ...process.env, STRATUS_IMAGE_NODE: process.execPath },
      maxBuffer: 1 << 24,
    });
    container = (await buildah('from', '--pull-never', TAG)).stdout.trim();
  }, 600_000);

  // Removing vfs layers deletes whole root file systems: longer than the default 10 s on a loaded machine.
  afterAll(async () => {
    if (container) await buildah('rm', container);
    await buildah('rmi', TAG, 'localhost/node:24-trixie-slim').catch(() => undefined);
  }, 120_000);

  it('is built by a script that passes shellcheck', async () => {
    const result = await run('shellcheck', [join(root, 'scripts/build-image-offline.sh')]).catch(
      (err: { stdout: string }) => err,
    );
    expect(result.stdout).toBe('');
  });

  it('runs as the numeric non-root user the chart expects', async () => {
    const { stdout } = await buildah('run', '--isolation', 'chroot', container!, '--', 'id', '-u');
    expect(stdout.trim()).toBe('65532');
  });

  // Its first requests come while the image starts: they wait on the reserved port and are answered once the API
  // server serves (cmd/startup-checks.ts).
  it('runs embedded mode: the worker ingests the sample source and the API server serves its store', async () => {
    const port = await freePort();
    // The image's default command on a free loopback port (chroot isolation shares the host's network).
    const child = spawn(
      'buildah',
      [
        ...['--storage-driver', 'vfs', 'run', '--isolation', 'chroot', container!, '--'],
        ...['node', 'cmd/stratus.ts', 'embedded', '--host', '127.0.0.1', '--port', String(port)],
        ...[
          '--data-dir',
          '/var/lib/stratus',
          '--manifests',
          'manifests/data-sources',
          '--manifests',
          'manifests/examples',
        ],
      ],
      { stdio: 'ignore', detached: true },
    );
    try {
      const url = `http://127.0.0.1:${port}`;
      const zmetadata = await eventually(
        async () => {
          const response = await fetch(`${url}/zarr/sample/.zmetadata`).catch(() => undefined);
          if (!response) return undefined;
          const body = await response.text();
          return response.ok ? (JSON.parse(body) as { metadata: Record<string, unknown> }) : undefined;
        },
        // The examples start four ingestions at once (the sample and the three years of sample weather, each of
        // those split into parts): the sample's store comes in seconds alone, later beside other test files.
        { timeoutMs: 300_000 },
      );
      expect(Object.keys(zmetadata.metadata)).toContain('value/.zarray');
      const datasets = await fetch(`${url}/datasets`);
      expect(datasets.status).toBe(200);
      expect(JSON.stringify(await datasets.json())).toContain('"sample"');
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});
