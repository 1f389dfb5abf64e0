/**
 * The example manifests: every kind of climate.stratus.dev has one, every document passes the schemas, the names
 * they refer to exist, and those under manifests/examples/ (which `make run` applies) need no network: every
 * DataSource they use has the offline `sample` provider.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { resourceKinds, validateObject } from '../../core/resources/registry.ts';

interface Example {
  file: string;
  kind: string;
  name: string;
  spec: Record<string, unknown>;
  /** The document as parsed, for the schemas. */
  object: unknown;
}

const manifestsDir = join(import.meta.dirname, '../../manifests');

async function load(dir: string): Promise<Example[]> {
  const files = (await readdir(join(manifestsDir, dir))).filter((f) => f.endsWith('.yaml')).sort();
  const examples: Example[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(await readFile(join(manifestsDir, dir, file), 'utf8'))) {
      const object = doc.toJS() as { kind: string; metadata: { name: string }; spec: Record<string, unknown> };
      const { kind, metadata, spec } = object;
      examples.push({ file: `${dir}/${file}`, kind, name: metadata.name, spec, object });
    }
  }
  return examples;
}

const applied = await load('examples');
const reference = await load('examples-reference');
const builtIns = await load('data-sources');
const all = [...applied, ...reference, ...builtIns];

/** Every reference between kinds that the examples make: a spec field naming an object of another kind. */
const references: { from: string; field: string; to: string; key: (e: Example) => unknown }[] = [
  { from: 'Dataset', field: 'source', to: 'DataSource', key: (e) => e.name },
  { from: 'FeatureCollection', field: 'source', to: 'DataSource', key: (e) => e.name },
  { from: 'Ingestion', field: 'source', to: 'DataSource', key: (e) => e.name },
  { from: 'Schedule', field: 'datasetId', to: 'Dataset', key: (e) => e.name },
  { from: 'Delivery', field: 'exportId', to: 'Export', key: (e) => e.name },
  { from: 'Delivery', field: 'jobId', to: 'ProcessingJob', key: (e) => e.name },
  { from: 'Program', field: 'trackedEntityType', to: 'TrackedEntityType', key: (e) => e.spec.uid },
  { from: 'OAuth2Authorization', field: 'clientId', to: 'OAuth2Client', key: (e) => e.spec.clientId },
  { from: 'OAuth2Authorization', field: 'principalName', to: 'User', key: (e) => e.spec.username },
  { from: 'OAuth2AuthorizationConsent', field: 'clientId', to: 'OAuth2Client', key: (e) => e.spec.clientId },
  { from: 'OAuth2AuthorizationConsent', field: 'principalName', to: 'User', key: (e) => e.spec.username },
  { from: 'InitialAccessToken', field: 'principalName', to: 'User', key: (e) => e.spec.username },
  { from: 'Session', field: 'principalName', to: 'User', key: (e) => e.spec.username },
  { from: 'OAuth2ClientAssertion', field: 'clientId', to: 'OAuth2Client', key: (e) => e.spec.clientId },
  { from: 'AnalyticsTable', field: 'featureCollection', to: 'FeatureCollection', key: (e) => e.name },
];

describe('example manifests', () => {
  it('show every kind of climate.stratus.dev', () => {
    const shown = new Set([...applied, ...reference].map((e) => e.kind));
    expect(resourceKinds.map((k) => k.kind).filter((kind) => !shown.has(kind))).toEqual([]);
  });

  it.each([...applied, ...reference].map((e) => [e.file, e.kind, e.name, e.object]))(
    '%s: %s %s passes the schemas',
    (_file, _kind, _name, object) => {
      const result = validateObject(object);
      expect(result.ok ? [] : result.issues).toEqual([]);
    },
  );

  it('declare the CF units of every raster DataSource, which ingestion stamps on the stored variable', () => {
    const sources = all.filter((e) => e.kind === 'DataSource' && e.spec.itemType !== 'feature');
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(source.spec.units, source.file).toMatch(/\S/);
  });

  it('refer only to objects the examples or the built-in data sources define', () => {
    const dangling: string[] = [];
    for (const { from, field, to, key } of references) {
      const targets = new Set(all.filter((e) => e.kind === to).map(key));
      for (const example of all.filter((e) => e.kind === from)) {
        const value = example.spec[field];
        if (!targets.has(value)) dangling.push(`${example.file}: ${from} ${example.name} ${field}=${String(value)}`);
      }
    }
    expect(dangling).toEqual([]);
  });

  it('applied by make run, use only DataSources of the offline sample provider', () => {
    const sources = new Map(
      all.filter((e) => e.kind === 'DataSource').map((e) => [e.name, (e.spec.provider as { name: string }).name]),
    );
    // A DataSource example is used by being applied; the other kinds name theirs in spec.source.
    const used = applied.flatMap((e) => {
      const source = e.kind === 'DataSource' ? e.name : e.spec.source;
      return typeof source === 'string' ? [{ file: e.file, source }] : [];
    });
    expect(used.length).toBeGreaterThan(0);
    for (const { file, source } of used) expect(sources.get(source), `${file}: ${source}`).toBe('sample');
  });
});
