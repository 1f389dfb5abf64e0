import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
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

  it('applies many documents at once, the later of two naming one object winning, answering in document order', async () => {
    const files = await loadManifests(join(fixtures, 'valid'), validateObject);
    const [source, dataset] = files[1]!.documents as [KubeObject, KubeObject];
    const renamed = (i: number) => ({ ...dataset, metadata: { ...dataset.metadata, name: `d-${i}` } });
    const documents = [source, ...Array.from({ length: 100 }, (_, i) => renamed(i))];
    for (let title = 0; title < 40; title++)
      documents.push({ ...dataset, spec: { ...(dataset.spec as object), datasetName: `Title ${title}` } });
    const applied = await applyManifests(cluster, [{ file: 'many.yaml', documents }], kindFor);
    expect(applied.map((o) => o.metadata.name)).toEqual(documents.map((d) => d.metadata.name));
    const stored = await cluster.get<KubeObject<{ datasetName: string }>>(kindFor(dataset), 'sample-daily', 'default');
    expect(stored?.spec?.datasetName).toBe('Title 39');
    expect((await cluster.list(kindFor(dataset), { namespace: 'default' })).items).toHaveLength(101);
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

describe('manifests refused before anything is applied', () => {
  let dir: string;
  let cluster: EmbeddedCluster;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-manifests-bad-'));
    cluster = await openEmbeddedCluster({ dataDir: join(dir, 'cluster') });
  });
  afterEach(async () => {
    await cluster.close();
    await rm(dir, { recursive: true, force: true });
  });

  const dataSource = (name: string, namespace?: string) =>
    [
      'apiVersion: climate.stratus.dev/v1alpha1',
      'kind: DataSource',
      'metadata:',
      `  name: ${name}`,
      ...(namespace ? [`  namespace: ${namespace}`] : []),
      'spec:',
      '  datasetName: Sample',
      '  provider:',
      '    name: sample',
    ].join('\n');

  async function writeDir(name: string, text: string): Promise<string> {
    const path = join(dir, name);
    await mkdir(path, { recursive: true });
    await writeFile(join(path, 'resources.yaml'), text);
    return path;
  }

  async function refusal(dirs: string[]): Promise<ManifestError> {
    const error = await loadManifests(dirs, validateObject).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ManifestError);
    return error as ManifestError;
  }

  it.each([
    ['a name with capitals and an underscore', dataSource('Bad_Name'), 'metadata.name'],
    ['a namespace that is no DNS label', dataSource('good', 'Bad_NS'), 'metadata.namespace'],
    ['a 300-character name', dataSource('a'.repeat(300)), 'metadata.name'],
  ])('refuses %s after a valid document, naming document 1 and the field', async (_what, bad, field) => {
    const path = await writeDir('one', `${dataSource('fine')}\n---\n${bad}\n`);
    const error = await refusal([path]);
    expect(error.problems).toEqual([expect.objectContaining({ document: 1, field })]);
    expect(error.message).toContain(`resources.yaml [document 1] ${field}`);
  });

  it('reports every failure of every document: name and namespace beside the schema, refinements beside fields', async () => {
    const exportWith = (target: string[], more: string[] = []) =>
      [
        'apiVersion: climate.stratus.dev/v1alpha1',
        'kind: Export',
        'metadata:',
        '  name: dhis2',
        'spec:',
        '  target:',
        ...target.map((line) => `    ${line}`),
        ...more,
      ].join('\n');
    const first = await writeDir(
      'several',
      [
        dataSource('Bad_Name', 'Bad_NS').replace('datasetName: Sample', 'datasetName: 5'),
        dataSource('fine'),
        exportWith(
          ['type: dhis2-tracker', 'url: not-a-url', 'credentialsSecret: a', 'tokenSecret: b'],
          ['  deliveryHistoryLimit: 0', '  rules:', '    missingValues: delete'],
        ),
        exportWith(['type: dhis2-data-value-sets', 'url: 5']),
      ].join('\n---\n'),
    );
    const second = await writeDir('more', `${dataSource('Also_Bad')}\n`);
    const error = await refusal([first, second]);
    const found = error.problems.map((p) => `${p.file.split('/').slice(-2).join('/')} ${p.document} ${p.field}`);
    expect(found).toEqual([
      'several/resources.yaml 0 metadata.name',
      'several/resources.yaml 0 metadata.namespace',
      'several/resources.yaml 0 spec.datasetName',
      'several/resources.yaml 2 spec.target.url',
      'several/resources.yaml 2 spec.target.url',
      'several/resources.yaml 2 spec.deliveryHistoryLimit',
      'several/resources.yaml 2 spec.target',
      'several/resources.yaml 2 spec.target.program',
      'several/resources.yaml 2 spec.rules.missingValues',
      'several/resources.yaml 3 spec.target.url',
      'more/resources.yaml 0 metadata.name',
    ]);
    expect((await cluster.list(findKind('climate.stratus.dev/v1alpha1', 'DataSource')!)).items).toEqual([]);
  });

  it('validates every directory before applying any: a bad second directory keeps the first unapplied', async () => {
    const first = await writeDir('first', `${dataSource('first')}\n`);
    const second = await writeDir('second', `${dataSource('Bad_Name')}\n`);
    const error = await refusal([first, second]);
    expect(error.problems).toEqual([
      expect.objectContaining({ file: expect.stringContaining('second/resources.yaml') }),
    ]);
    expect((await cluster.list(findKind('climate.stratus.dev/v1alpha1', 'DataSource')!)).items).toEqual([]);
  });

  it('refuses a YAML alias bomb as a problem of its file and document', async () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (const [from, to] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
      ['d', 'e'],
      ['e', 'f'],
      ['f', 'g'],
      ['g', 'h'],
    ])
      levels.push(`${to}: &${to} [*${from},*${from},*${from},*${from},*${from},*${from},*${from},*${from},*${from}]`);
    const path = await writeDir('bomb', `${dataSource('fine')}\n---\n${levels.join('\n')}\n`);
    const error = await refusal([path]);
    expect(error.problems).toEqual([
      expect.objectContaining({ document: 1, message: expect.stringMatching(/^cannot be read: .*alias/i) }),
    ]);
  });
});
