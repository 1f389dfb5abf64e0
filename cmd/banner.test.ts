/** The start banner of embedded mode, printed again on SIGUSR2 once the run's log lines have scrolled it away. */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitBanner } from '../test/support/embedded-banner.ts';
import { eventually } from '../test/support/eventually.ts';

const root = resolve(import.meta.dirname, '..');

describe('start banner', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-banner-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
  });

  it('is printed again, with the first admin’s password, on SIGUSR2', async () => {
    const child = spawn(
      process.execPath,
      [join(root, 'cmd/stratus.ts'), 'embedded', '--data-dir', dataDir, '--port', '0'],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, STRATUS_HOME: dataDir } },
    );
    const exited = new Promise((done) => child.on('exit', done));
    try {
      const started = await awaitBanner(child);
      const password = /first admin +admin \/ (\S+) +\(shown once/.exec(started.output)![1]!;
      expect(started.output).toContain(`kill -USR2 ${child.pid} prints this again`);
      let again = '';
      child.stdout!.on('data', (chunk: Buffer) => (again += chunk.toString()));
      child.kill('SIGUSR2');
      await eventually(async () => /Press Ctrl\+C/.test(again) || undefined, { timeoutMs: 10_000, intervalMs: 50 });
      expect(again).toContain(`Stratus is running (embedded mode)\n  landing page   ${started.url}/`);
      expect(again).toContain(`first admin    admin / ${password}`);
    } finally {
      child.kill('SIGINT');
      await exited;
    }
  }, 90_000);
});
