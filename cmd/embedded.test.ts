import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadManifests } from '../core/cluster/manifests.ts';
import type { KubeObject } from '../core/cluster/objects.ts';
import { kindByName, validateObject } from '../core/resources/registry.ts';
import { controllerDefinitions } from '../operator/manager.ts';
import { eventually } from '../test/support/eventually.ts';
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
      // (ProcessingJob, Workflow, OAuth2Client, User) are stored as they are.
      const definitions = controllerDefinitions({ instance: { storageRoot: dataDir, bbox: [0, 0, 1, 1] } });
      const reconciled = new Set(definitions.map((definition) => definition.kind.kind));
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
  });

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
