import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { loadCrds, stratusCrdsDir } from '../support/kube-crds.ts';
import { kustomizeBase, renderChart } from '../support/stratus-chart.ts';

const manifestsDir = join(import.meta.dirname, '../../manifests');

const idOf = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

describe('the Kustomize base manifests/base', () => {
  it('holds the Namespace, the CRDs and the chart with its default values, each object where the chart puts it', async () => {
    const objects = await kustomizeBase();
    const crds = await loadCrds(stratusCrdsDir);
    const chart = await renderChart({ namespace: 'stratus' });
    expect(objects.filter((o) => o.kind === 'CustomResourceDefinition').map(idOf).sort()).toEqual(
      crds.map(idOf).sort(),
    );
    expect(objects.filter((o) => o.kind !== 'CustomResourceDefinition').map(idOf).sort()).toEqual(
      ['Namespace//stratus', ...chart.map(idOf)].sort(),
    );
  });

  it('installs every built-in DataSource in default, where the API server of a cluster-wide install creates', async () => {
    const sources = (await readdir(join(manifestsDir, 'data-sources'))).filter((f) => f.endsWith('.yaml'));
    const installed = (await kustomizeBase()).filter((o) => o.kind === 'DataSource');
    expect(installed).toHaveLength(sources.length);
    for (const source of installed) expect(source.metadata.namespace).toBe('default');
  });
});
