import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../cluster/objects.ts';
import type { Dataset } from '../../resources/dataset/schema.ts';
import { API_VERSION } from '../../resources/kind.ts';
import { withPinnedVersions } from './rerun.ts';

const dataset = (name: string, versions: string[]): KubeObject => ({
  apiVersion: API_VERSION,
  kind: 'Dataset',
  metadata: { name, namespace: 'default' },
  spec: {},
  status: { currentVersion: versions.at(-1), versions: versions.map((id) => ({ id })) },
});
const workflow: KubeObject = { apiVersion: API_VERSION, kind: 'Workflow', metadata: { name: 'chirps' }, spec: {} };

describe('withPinnedVersions', () => {
  it('hands each pinned dataset over at its pinned version, and the other resources as they are', () => {
    const { resources, missing } = withPinnedVersions(
      [dataset('chirps', ['v1', 'v2']), dataset('era5', ['e1', 'e2']), workflow],
      { chirps: 'v1' },
    );
    expect(missing).toBeUndefined();
    expect(resources!.map((o) => (o as Dataset).status?.currentVersion)).toEqual(['v1', 'e2', undefined]);
    expect(resources![2]).toBe(workflow);
  });

  it('names every pinned version that is no longer retained', () => {
    const { resources, missing } = withPinnedVersions([dataset('chirps', ['v2']), dataset('era5', ['e1'])], {
      chirps: 'v1',
      era5: 'e1',
    });
    expect(resources).toBeUndefined();
    expect(missing).toEqual(['chirps@v1']);
  });
});
