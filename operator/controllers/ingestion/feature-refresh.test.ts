import { describe, expect, it } from 'vitest';
import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import type { FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import type { Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import type { JobState } from '../../jobs/runner.ts';
import type { Action } from '../../runtime/actions.ts';
import type { IngestionObserved } from './observed.ts';
import { planIngestion } from './plan.ts';

const now = new Date('2026-11-22T12:00:00Z');
const instance = { storageRoot: '/store', bbox: [-13.5, 6.9, -10.2, 10] as [number, number, number, number] };
const template = {
  metadata: { name: 'districts' },
  spec: {
    datasetName: 'Districts',
    itemType: 'feature',
    idProperty: 'code',
    license: 'CC-BY-4.0',
    sourceName: 'Survey office',
    provider: { name: 'sample', parameters: { seed: 1 } },
  },
} as unknown as DataSource;
const collection = (status?: FeatureCollection['status']) =>
  ({
    metadata: { name: 'districts', namespace: 'default' },
    spec: { name: 'Districts', source: 'districts', idProperty: 'pcode', license: 'other', publish: true },
    ...(status && { status }),
  }) as FeatureCollection;
const refresh = (status?: Ingestion['status'], publish = true): Ingestion => ({
  apiVersion: API_VERSION,
  kind: 'Ingestion',
  metadata: { name: 'districts-1a2b3c4d', namespace: 'default', generation: 1 } as Ingestion['metadata'],
  spec: {
    source: 'districts',
    datasetId: 'districts',
    mode: 'feature-refresh',
    overwrite: false,
    publish,
    maxAttempts: 3,
    cancelRequested: false,
  },
  ...(status && { status }),
});
const observe = (extra: Partial<IngestionObserved> = {}): IngestionObserved => ({
  source: template,
  dataset: undefined,
  collection: undefined,
  job: undefined,
  earlierWriters: [],
  instance,
  ...extra,
});
const succeeded = (result: unknown): JobState => ({
  name: 'districts-1a2b3c4d-a1',
  phase: 'succeeded',
  startedAt: '2026-11-22T11:59:00Z',
  finishedAt: '2026-11-22T11:59:30Z',
  result,
});
const workerResult = {
  collectionId: 'districts',
  version: {
    id: 'v2',
    createdAt: '2026-11-22T11:59:20Z',
    path: 'features/districts/v2.parquet',
    featureCount: 12,
    geometryTypes: ['Polygon'],
    bbox: [-13.4, 7, -10.3, 9.9],
  },
  report: { received: 13, stored: 12, repairs: [{ feature: '#4 (id "D5")', action: 'closed-ring', count: 1 }] },
};
const find = <K extends Action['kind']>(actions: Action[], kind: K) =>
  actions.filter((a): a is Extract<Action, { kind: K }> => a.kind === kind);

describe('Ingestion planner: feature refresh runs', () => {
  it('a first refresh creates the collection from its template and starts a feature-refresh attempt', () => {
    const plan = planIngestion(refresh(), observe(), now);
    const [apply] = find(plan.actions, 'apply');
    expect(apply!.ref.kind).toBe('FeatureCollection');
    expect(apply!.object).toMatchObject({
      metadata: { name: 'districts', namespace: 'default' },
      spec: {
        name: 'Districts',
        source: 'districts',
        idProperty: 'code',
        license: 'CC-BY-4.0',
        attribution: 'Survey office',
        publish: true,
      },
    });
    const [start] = find(plan.actions, 'startJob');
    expect(start!.job).toMatchObject({
      name: 'districts-1a2b3c4d-a1',
      task: 'feature-refresh',
      input: {
        run: 'districts-1a2b3c4d',
        attempt: 1,
        collectionId: 'districts',
        storageRoot: '/store',
        bbox: instance.bbox,
        provider: { name: 'sample', parameters: { seed: 1 } },
        idProperty: 'code',
        keepFiles: [],
      },
    });
  });

  it('a refresh of an existing collection keeps its current file and its own id_property', () => {
    const existing = collection({ path: 'features/districts/v1.parquet', featureCount: 11 });
    const plan = planIngestion(refresh(), observe({ collection: existing }), now);
    expect(find(plan.actions, 'apply')).toEqual([]);
    expect(find(plan.actions, 'startJob')[0]!.job.input).toMatchObject({
      idProperty: 'pcode',
      keepFiles: ['features/districts/v1.parquet'],
    });
  });

  it.each([
    [
      'basic credentials from credentialsSecret',
      { credentialsSecret: 'dhis2-login' },
      [
        { name: 'STRATUS_CREDENTIALS_USERNAME', secretKeyRef: { name: 'dhis2-login', key: 'username' } },
        { name: 'STRATUS_CREDENTIALS_PASSWORD', secretKeyRef: { name: 'dhis2-login', key: 'password' } },
      ],
    ],
    [
      'a token from tokenSecret',
      { tokenSecret: 'dhis2-token' },
      [{ name: 'STRATUS_CREDENTIALS_TOKEN', secretKeyRef: { name: 'dhis2-token', key: 'token' } }],
    ],
    ['nothing without a Secret', {}, undefined],
  ])('hands the attempt %s, never in its input', (_name, parameters, env) => {
    const source = { ...template, spec: { ...template.spec, provider: { name: 'url', parameters } } } as DataSource;
    const [start] = find(planIngestion(refresh(), observe({ source }), now).actions, 'startJob');
    expect(start!.job.env).toEqual(env);
    expect(start!.job.input).toMatchObject({ provider: { name: 'url', parameters } });
  });

  it("takes credentials from the collection's own provider when it has one", () => {
    const own = collection();
    own.spec.provider = { name: 'url', parameters: { url: 'http://x/a.geojson', tokenSecret: 'own-token' } };
    const [start] = find(planIngestion(refresh(), observe({ collection: own }), now).actions, 'startJob');
    expect(start!.job.input).toMatchObject({ provider: { name: 'url' } });
    expect(start!.job.env).toEqual([
      { name: 'STRATUS_CREDENTIALS_TOKEN', secretKeyRef: { name: 'own-token', key: 'token' } },
    ]);
  });

  it('fails a first refresh whose template declares no idProperty, and starts nothing', () => {
    const { idProperty: _omitted, ...spec } = template.spec;
    const plan = planIngestion(refresh(), observe({ source: { ...template, spec } as DataSource }), now);
    expect(find(plan.actions, 'startJob')).toEqual([]);
    expect(find(plan.actions, 'patchStatus')[0]!.status).toMatchObject({
      phase: 'failed',
      error: { type: 'InvalidRequest', message: expect.stringMatching(/declares no idProperty/) },
    });
  });

  it('waits while an earlier run writes the same collection', () => {
    const plan = planIngestion(refresh(), observe({ earlierWriters: ['districts-00000000'] }), now);
    expect(find(plan.actions, 'startJob')).toEqual([]);
    expect(plan.outcome).toMatchObject({ kind: 'requeueAfter', ms: 5000 });
  });

  it('a succeeded attempt switches the collection to the new file and records featurecollection.updated', () => {
    const existing = collection({ path: 'features/districts/v1.parquet', featureCount: 11 });
    const running = refresh({ phase: 'running', attempt: 1, events: [] });
    const plan = planIngestion(running, observe({ collection: existing, job: succeeded(workerResult) }), now);
    const [switchStatus] = find(plan.actions, 'patchStatusOf');
    expect(switchStatus).toEqual({
      kind: 'patchStatusOf',
      ref: expect.objectContaining({ kind: 'FeatureCollection' }),
      name: 'districts',
      namespace: 'default',
      status: {
        featureCount: 12,
        geometryTypes: ['Polygon'],
        primaryGeometry: 'geometry',
        crs: 'EPSG:4326',
        extent: {
          spatial: { xmin: -13.4, ymin: 7, xmax: -10.3, ymax: 9.9 },
          spatialWgs84: null,
          temporal: { start: null, end: null },
        },
        lastUpdated: '2026-11-22T11:59:20Z',
        path: 'features/districts/v2.parquet',
        publication: { status: 'published', publishedAt: now.toISOString() },
      },
    });
    const status = find(plan.actions, 'patchStatus')[0]!.status;
    expect(status.phase).toBe('successful');
    expect(status.result).toEqual({
      collectionId: 'districts',
      version: 'v2',
      featureCount: 12,
      report: workerResult.report,
    });
    expect(status.events).toEqual([
      {
        type: 'featurecollection.updated',
        source: '/features/districts',
        eventID: 'districts-1a2b3c4d:1',
        time: now.toISOString(),
        data: {
          collection_id: 'districts',
          version: 'v2',
          action: 'replace',
          feature_count: 12,
          previous_feature_count: 11,
        },
      },
    ]);
  });

  it('an unpublished refresh switches the file without publishing the collection', () => {
    const plan = planIngestion(
      refresh({ phase: 'running', attempt: 1 }, false),
      observe({ job: succeeded(workerResult) }),
      now,
    );
    const status = find(plan.actions, 'patchStatusOf')[0]!.status;
    expect(status.publication).toBeUndefined();
    expect(status.path).toBe('features/districts/v2.parquet');
  });

  it('an invalid worker result fails the run and switches nothing', () => {
    const plan = planIngestion(refresh({ phase: 'running', attempt: 1 }), observe({ job: succeeded({}) }), now);
    expect(find(plan.actions, 'patchStatusOf')).toEqual([]);
    expect(find(plan.actions, 'patchStatus')[0]!.status).toMatchObject({
      phase: 'failed',
      error: { type: 'WorkerError' },
    });
  });

  it('a failed last attempt fails the run and leaves the collection as it was', () => {
    const failed: JobState = {
      name: 'districts-1a2b3c4d-a3',
      phase: 'failed',
      startedAt: '2026-11-22T11:59:00Z',
      error: { type: 'UpstreamUnavailable', message: 'http://x failed after 4 attempts: HTTP 500' },
    };
    const plan = planIngestion(refresh({ phase: 'running', attempt: 3 }), observe({ job: failed }), now);
    expect(find(plan.actions, 'patchStatusOf')).toEqual([]);
    expect(find(plan.actions, 'patchStatus')[0]!.status).toMatchObject({ phase: 'failed', error: failed.error });
  });
});
