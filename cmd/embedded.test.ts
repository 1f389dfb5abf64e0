import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadManifests } from '../core/cluster/manifests.ts';
import type { KubeObject } from '../core/cluster/objects.ts';
import { kindByName, validateObject } from '../core/resources/registry.ts';
import { controllerDefinitions } from '../operator/manager.ts';
import { sampleDatasetManifest } from '../test/support/embedded.ts';
import { eventually } from '../test/support/eventually.ts';
import { freePort } from '../scripts/free-port.ts';
import { runEmbedded } from './embedded.ts';

const root = resolve(import.meta.dirname, '..');

interface Condition {
  type: string;
  status: string;
}

describe('embedded mode', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-embedded-run-'));
  });
  afterEach(async () => rm(dataDir, { recursive: true, force: true }));

  it('applies the example manifests, reconciles them and answers over HTTP', async () => {
    const running = await runEmbedded({
      dataDir,
      manifests: [join(root, 'manifests/data-sources'), join(root, 'manifests/examples')],
      config: join(root, 'config/stratus.properties'),
      host: '127.0.0.1',
      port: 0,
    });
    try {
      expect(await (await fetch(`${running.url}/health`)).json()).toEqual({ status: 'healthy' });
      const datasets = (await (await fetch(`${running.url}/datasets`)).json()) as { items: { dataset_id: string }[] };
      expect(datasets.items.map((d) => d.dataset_id)).toContain('sample');
      expect(await (await fetch(`${running.url}/extent`)).json()).toMatchObject({ bbox: [-13.5, 6.9, -10.2, 10] });
      let metrics = '';
      for (let i = 0; i < 100 && !/controller_runtime_reconcile_total\{controller="dataset"/.test(metrics); i++) {
        await new Promise((r) => setTimeout(r, 50));
        metrics = await (await fetch(`${running.url}/metrics`)).text();
      }
      expect(metrics).toMatch(/controller_runtime_reconcile_total\{controller="dataset",result="success"\} [1-9]/);
      expect(metrics).toMatch(/process_cpu_seconds_total/);
      // Every example of a kind that has a controller becomes Ready offline; the kinds without one yet
      // are stored as they are.
      const definitions = controllerDefinitions({ instance: { storageRoot: dataDir, bbox: [0, 0, 1, 1] } });
      // A Delivery needs its target over the network: its example is in manifests/examples-reference.
      const reconciled = new Set(
        definitions.map((definition) => definition.kind.kind).filter((kind) => kind !== 'Delivery'),
      );
      const examples = (await loadManifests(join(root, 'manifests/examples'), validateObject))
        .flatMap((file) => file.documents)
        .filter((o) => reconciled.has(o.kind));
      expect(new Set(examples.map((o) => o.kind))).toEqual(reconciled);
      for (const example of examples) {
        const ready = await eventually(
          async () => {
            const kind = kindByName(example.kind);
            const stored = await running.cluster.get<KubeObject<unknown, { conditions?: Condition[] }>>(
              kind,
              example.metadata.name,
              example.metadata.namespace,
            );
            return stored?.status?.conditions?.find((c) => c.type === 'Ready' && c.status !== 'Unknown');
          },
          { timeoutMs: 30_000 },
        );
        expect(ready, `${example.kind} ${example.metadata.name}`).toMatchObject({ status: 'True' });
      }
    } finally {
      await running.stop();
    }
    // Every example is waited for in turn, the analytics table's build after the ingestion it reads.
  }, 90_000);

  it('answers a request sent while it starts, once it serves', async () => {
    const port = await freePort();
    let started = false;
    const starting = runEmbedded({
      dataDir,
      manifests: [join(root, 'manifests/data-sources'), join(root, 'manifests/examples')],
      config: join(root, 'config/stratus.properties'),
      host: '127.0.0.1',
      port,
    }).finally(() => (started = true));
    // The port listens from before the store opens: a connection stands as soon as it is reserved.
    await eventually(
      () =>
        new Promise<true | undefined>((resolve) => {
          const probe = connect(port, '127.0.0.1', () => resolve(true)).once('error', () => resolve(undefined));
          probe.once('connect', () => probe.destroy());
        }),
      { timeoutMs: 30_000, intervalMs: 5 },
    );
    // Bounded, so that a request left unanswered fails here rather than at undici's five-minute headers timeout.
    const health = fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(100_000) });
    // A start that fails closes the request unanswered: the start's own error is the one to report.
    health.catch(() => undefined);
    expect(started).toBe(false);
    const running = await starting;
    try {
      const response = await health;
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'healthy' });
    } finally {
      await running.stop();
    }
  }, 120_000);

  it('ends within seconds of SIGTERM after serving an Icechunk snapshot (the WASI module held it open before)', async () => {
    const manifests = join(dataDir, 'manifests');
    await mkdir(manifests);
    const ingestion = sampleDatasetManifest({
      name: 'sample-ic',
      title: 'Sample as Icechunk',
      format: 'icechunk',
      run: 'sample-ic-q1',
      start: '2024-01-01',
      end: '2024-01-10',
    });
    await writeFile(join(manifests, 'icechunk.yaml'), ingestion);
    const child = spawn(
      process.execPath,
      [join(root, 'cmd/stratus.ts'), 'embedded', '--data-dir', join(dataDir, 'data'), '--port', '0'].concat([
        '--manifests',
        join(root, 'manifests/data-sources'),
        '--manifests',
        manifests,
      ]),
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
    try {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const url = await eventually(async () => /landing page +(\S+)\/\n/.exec(out)?.[1], { timeoutMs: 60_000 });
      await eventually(
        async () => {
          const job = (await (await fetch(`${url}/ingestions/jobs/sample-ic-q1`)).json()) as { status: string };
          return job.status === 'successful' || undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      expect((await fetch(`${url}/zarr/sample-ic/value/c/0/0/0`)).status).toBe(200);
      const signalled = Date.now();
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(10_000);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);

  it('creates the first admin once and prints its password that once (make run)', async () => {
    /** Starts `node cmd/stratus.ts embedded` as make run does, returns its banner and stops it. */
    const banner = () =>
      new Promise<string>((resolvePromise, reject) => {
        const child = spawn(
          process.execPath,
          [join(root, 'cmd/stratus.ts'), 'embedded', '--data-dir', dataDir, '--port', '0'],
          {
            cwd: root,
          },
        );
        let out = '';
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`no banner: ${out}`));
        }, 60_000);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('Press Ctrl+C')) child.kill('SIGINT');
        });
        child.on('exit', () => {
          clearTimeout(timer);
          resolvePromise(out);
        });
      });
    const first = await banner();
    const password = /first admin +admin \/ (\S+) +\(shown once/.exec(first)?.[1];
    expect(password, first).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const again = await banner();
    expect(again).not.toContain('first admin');
    expect(again).toContain('/login');

    const running = await runEmbedded({
      dataDir,
      manifests: [],
      config: join(root, 'config/stratus.properties'),
      host: '127.0.0.1',
      port: 0,
    });
    try {
      expect(running.firstAdmin).toEqual({ created: false, username: 'admin' });
      const basic = `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
      const me = await fetch(`${running.url}/me`, { headers: { authorization: basic } });
      expect(await me.json()).toMatchObject({ user_id: 'admin', roles: ['ALL'] });
    } finally {
      await running.stop();
    }
  }, 120_000);

  it('refuses to start on a malformed manifest directory, naming file, document and field', () => {
    const result = spawnSync(
      process.execPath,
      [
        join(root, 'cmd/stratus.ts'),
        'embedded',
        '--data-dir',
        dataDir,
        '--manifests',
        join(root, 'test/fixtures/manifests/schema-violation'),
        '--port',
        '0',
      ],
      { encoding: 'utf8', cwd: root, timeout: 20_000 },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/resources\.yaml \[document 1\] spec\.maxAttempts/);
  });

  it.each([
    [
      'a size that does not parse',
      'logging.file.max_size = lots',
      {},
      /stratus\.properties:2: logging\.file\.max_size = lots: must be a size/,
    ],
    [
      'a negative archive count',
      'logging.file.max_archives = -1',
      {},
      /stratus\.properties:2: logging\.file\.max_archives = -1: must be a whole number/,
    ],
    [
      'an unknown level',
      'logging.level.operator = LOUD',
      {},
      /stratus\.properties:2: logging\.level\.operator = LOUD: must be DEBUG/,
    ],
    [
      'an unknown module',
      'logging.level.operater = INFO',
      {},
      /stratus\.properties:2: logging\.level\.operater = INFO: no module is named operater; did you mean operator\?/,
    ],
    [
      'an unreadable STRATUS_LOG_CONFIG',
      '',
      { STRATUS_LOG_CONFIG: '/no/such/log-config.json' },
      /cannot read the log configuration STRATUS_LOG_CONFIG \/no\/such\/log-config\.json: ENOENT/,
    ],
  ])('refuses to start on %s, naming the file and what is wrong', async (_, line, env, message) => {
    const config = join(dataDir, 'stratus.properties');
    await writeFile(config, `instance.name = Broken\n${line}\n`);
    const result = spawnSync(
      process.execPath,
      [join(root, 'cmd/stratus.ts'), 'embedded', '--data-dir', dataDir, '--config', config, '--port', '0'],
      { encoding: 'utf8', cwd: root, timeout: 20_000, env: { ...process.env, ...env } },
    );
    expect(result.stderr).toMatch(message);
    expect(result.status).toBe(2);
  });

  it('refuses a data directory another running process has open, in one line', async () => {
    const owner = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      await mkdir(join(dataDir, 'cluster'), { recursive: true });
      await writeFile(join(dataDir, 'cluster', 'owner.pid'), `${owner.pid}\n${hostname()}\n`);
      const result = spawnSync(
        process.execPath,
        [join(root, 'cmd/stratus.ts'), 'embedded', '--data-dir', dataDir, '--port', '0'],
        { encoding: 'utf8', cwd: root, timeout: 20_000 },
      );
      expect(result.stderr.trim()).toBe(
        `the embedded store in ${join(dataDir, 'cluster')} is open in process ${owner.pid}; stop it first`,
      );
      expect(result.status).toBe(1);
    } finally {
      owner.kill('SIGKILL');
    }
  });

  it('explains its usage for an unknown command or option', () => {
    const unknown = spawnSync(process.execPath, [join(root, 'cmd/stratus.ts'), 'launch'], {
      encoding: 'utf8',
      cwd: root,
    });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "launch"[\s\S]*Usage: node cmd\/stratus.ts embedded/);
    const option = spawnSync(process.execPath, [join(root, 'cmd/stratus.ts'), 'embedded', '--prot', '1'], {
      encoding: 'utf8',
      cwd: root,
    });
    expect(option.status).toBe(2);
    expect(option.stderr).toMatch(/--prot/);
  });
});
