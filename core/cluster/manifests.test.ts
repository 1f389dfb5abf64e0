import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findKind, validateObject } from '../resources/registry.ts';
import { openEmbeddedCluster, type EmbeddedCluster } from './embedded/index.ts';
import { applyManifests, loadManifests, ManifestError } from './manifests.ts';
import type { KubeObject } from './objects.ts';

const fixtures = resolve(import.meta.dirname, '../../test/fixtures/manifests');
const kindFor = (o: KubeObject) => findKind(o.apiVersion, o.kind)!;

async function problemsOf(dir: string): Promise<ManifestError> {
  try {
    await loadManifests(join(fixtures, dir), validateObject);
  } catch (err) {
    if (err instanceof ManifestError) return err;
    throw err;
  }
  throw new Error('expected a ManifestError');
}

describe('manifests', () => {
  let dataDir: string;
  let cluster: EmbeddedCluster;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-manifests-'));
    cluster = await openEmbeddedCluster({ dataDir });
  });
  afterEach(async () => {
    await cluster.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('loads multi-document files recursively with defaults applied, skipping empty documents', async () => {
    const files = await loadManifests(join(fixtures, 'valid'), validateObject);
    expect(files.map((f) => [f.file.split('/').slice(-2).join('/'), f.documents.map((d) => d.kind)])).toEqual([
      ['nested/schedule.yml', ['Schedule']],
      ['valid/sources.yaml', ['DataSource', 'Dataset']],
    ]);
    const applied = await applyManifests(cluster, files, kindFor);
    expect(applied).toHaveLength(3);
    const dataset = await cluster.get(kindFor(applied[2]!), 'sample-daily', 'default');
    expect(dataset?.spec).toMatchObject({ format: 'zarr', license: 'other', publish: true });
  });

  it('is idempotent, like kubectl apply', async () => {
    const files = await loadManifests(join(fixtures, 'valid'), validateObject);
    const first = await applyManifests(cluster, files, kindFor);
    const second = await applyManifests(cluster, files, kindFor);
    expect(second.map((o) => o.metadata.resourceVersion)).toEqual(first.map((o) => o.metadata.resourceVersion));
  });

  it('reports a YAML syntax error with file, document index and line', async () => {
    const error = await problemsOf('bad-yaml');
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatchObject({ file: expect.stringMatching(/b-broken\.yaml$/), document: 1 });
    expect(error.message).toMatch(/b-broken\.yaml \[document 1\]: YAML syntax error at line \d+/);
  });

  it('reports an unknown kind with the kinds it knows', async () => {
    const error = await problemsOf('unknown-kind');
    expect(error.problems).toEqual([
      expect.objectContaining({ document: 0, field: 'kind', message: expect.stringMatching(/Datset.*Dataset/) }),
    ]);
  });

  it('reports a schema violation with its field path', async () => {
    const error = await problemsOf('schema-violation');
    expect(error.problems).toEqual([expect.objectContaining({ document: 1, field: 'spec.maxAttempts' })]);
    expect(error.message).toMatch(/resources\.yaml \[document 1\] spec\.maxAttempts: /);
  });

  it('applies nothing from a directory with any invalid document', async () => {
    await expect(loadManifests(join(fixtures, 'bad-yaml'), validateObject)).rejects.toBeInstanceOf(ManifestError);
    await expect(loadManifests(join(fixtures, 'schema-violation'), validateObject)).rejects.toBeInstanceOf(
      ManifestError,
    );
    for (const kind of ['DataSource', 'Dataset', 'Ingestion']) {
      expect((await cluster.list(findKind('climate.stratus.dev/v1alpha1', kind)!)).items).toEqual([]);
    }
  });
});
