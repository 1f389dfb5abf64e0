import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../core/cluster/objects.ts';
import { loadCrds, stratusCrdsDir } from '../support/kube-crds.ts';
import { kustomizeBase, renderChart } from '../support/stratus-chart.ts';

const manifestsDir = join(import.meta.dirname, '../../manifests');

const idOf = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;

describe('the Kustomize base manifests/base', () => {
  it('holds the CRDs, the chart with its default values and the built-in DataSources, all in namespace stratus', async () => {
    const objects = await kustomizeBase();
    const crds = await loadCrds(stratusCrdsDir);
    const chart = await renderChart({ namespace: 'stratus' });
    const sources = (await readdir(join(manifestsDir, 'data-sources'))).filter((f) => f.endsWith('.yaml'));
    expect(objects.filter((o) => o.kind === 'CustomResourceDefinition').map(idOf).sort()).toEqual(
      crds.map(idOf).sort(),
    );
    expect(objects.filter((o) => o.kind === 'DataSource')).toHaveLength(sources.length);
    for (const object of chart) expect(objects.map(idOf)).toContain(idOf(object));
    expect(objects.map(idOf)).toContain('Namespace/stratus');
    const clusterScoped = new Set(['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding']);
    for (const object of objects.filter((o) => !clusterScoped.has(o.kind)))
      expect(object.metadata.namespace, idOf(object)).toBe('stratus');
  });
});
