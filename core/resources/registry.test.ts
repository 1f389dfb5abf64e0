import { describe, expect, it } from 'vitest';
import { API_VERSION, findKind, kindByName, resourceKinds, validateObject } from './registry.ts';

/** Names, plurals and short names of built-in Kubernetes kinds that a Stratus short name must not shadow. */
const builtinNames = [
  'cs',
  'cm',
  'ep',
  'ev',
  'limits',
  'ns',
  'no',
  'pvc',
  'pv',
  'po',
  'rc',
  'quota',
  'sa',
  'svc',
  'crd',
  'crds',
  'ds',
  'deploy',
  'rs',
  'sts',
  'hpa',
  'cj',
  'csr',
  'ing',
  'netpol',
  'pdb',
  'psp',
  'pc',
  'sc',
  'ingresses',
  'jobs',
  'job',
  'pods',
  'pod',
  'secrets',
  'secret',
  'events',
  'event',
  'leases',
  'lease',
  'nodes',
  'services',
  'configmaps',
  'deployments',
  'daemonsets',
  'statefulsets',
  'replicasets',
  'cronjobs',
  'endpoints',
  'roles',
  'rolebindings',
  'clusterroles',
  'clusterrolebindings',
  'serviceaccounts',
  'namespaces',
  'all',
];

describe('resource registry', () => {
  it('lists every kind of DESIGN.md §3 once', () => {
    const kinds = resourceKinds.map((k) => k.kind).sort();
    expect(kinds).toEqual(
      [
        'AnalyticsTable',
        'DataSource',
        'Dataset',
        'Delivery',
        'Export',
        'FeatureCollection',
        'Ingestion',
        'InitialAccessToken',
        'OAuth2Authorization',
        'OAuth2AuthorizationConsent',
        'OAuth2Client',
        'OAuth2ClientAssertion',
        'ProcessingJob',
        'Program',
        'Schedule',
        'Session',
        'TrackedEntityType',
        'User',
        'Workflow',
        'WriterClaim',
      ].sort(),
    );
  });

  it('gives every kind short names that collide with no built-in kind nor with each other', () => {
    const shortNames = resourceKinds.flatMap((k) => k.shortNames);
    expect(shortNames.filter((s) => builtinNames.includes(s))).toEqual([]);
    expect(new Set(shortNames).size).toBe(shortNames.length);
    expect(resourceKinds.every((k) => k.categories.includes('stratus') && k.shortNames.length > 0)).toBe(true);
  });

  it('finds kinds by apiVersion and kind, and by name', () => {
    expect(findKind(API_VERSION, 'Dataset')?.plural).toBe('datasets');
    expect(findKind('v1', 'Dataset')).toBeUndefined();
    expect(kindByName('Schedule').shortNames).toEqual(['ssched']);
    expect(() => kindByName('Nope')).toThrow(/unknown kind Nope/);
  });

  it('applies defaults when an object is valid', () => {
    const result = validateObject({
      apiVersion: API_VERSION,
      kind: 'Ingestion',
      metadata: { name: 'run-1' },
      spec: { source: 'chirps-v3-daily', start: '2024-01-01' },
    });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.object.spec).toMatchObject({ mode: 'ingestion', overwrite: false, publish: true, maxAttempts: 3 });
    }
  });

  it('reports each violation with its field path and a readable message', () => {
    const result = validateObject({
      apiVersion: API_VERSION,
      kind: 'Dataset',
      metadata: { name: 'd' },
      spec: { source: 'x', datasetName: 'X', format: 'tiff', bbox: [1, 2, 3] },
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues).toEqual(
        expect.arrayContaining([
          { field: 'spec.format', message: 'must be one of zarr, icechunk, netcdf, geoparquet' },
          { field: 'spec.bbox', message: 'must have exactly 4 numbers: xmin, ymin, xmax, ymax' },
        ]),
      );
    }
  });

  it('names the known kinds when the kind is unknown', () => {
    const result = validateObject({ apiVersion: API_VERSION, kind: 'Datset', metadata: { name: 'x' }, spec: {} });
    expect(result).toMatchObject({ ok: false, issues: [{ field: 'kind' }] });
    if (!result.ok) expect(result.issues[0]!.message).toMatch(/unknown kind .*Datset.*known kinds are .*Dataset/);
  });

  it('rejects an OAuth2 client with unknown scopes, but keeps a stored PKCE-off setting (spec 2)', () => {
    const result = validateObject({
      apiVersion: API_VERSION,
      kind: 'OAuth2Client',
      metadata: { name: 'app' },
      spec: {
        clientId: 'app',
        clientAuthenticationMethods: ['none'],
        authorizationGrantTypes: ['authorization_code'],
        scopes: ['openid', 'client.admin'],
        clientSettings: { requireProofKey: false, requireAuthorizationConsent: true },
      },
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues.map((i) => i.field)).toEqual(['spec.scopes[1]']);
    }
  });

  it('rejects a malformed cron expression and token hashes that are not hashes', () => {
    const schedule = validateObject({
      apiVersion: API_VERSION,
      kind: 'Schedule',
      metadata: { name: 's' },
      spec: { datasetId: 'd', cron: 'every day' },
    });
    expect(schedule).toMatchObject({ ok: false, issues: [{ field: 'spec.cron' }] });
    const iat = validateObject({
      apiVersion: API_VERSION,
      kind: 'InitialAccessToken',
      metadata: { name: 'i' },
      spec: { hash: 'plain-token', principalName: 'u', redirectUri: 'app://x', expiresAt: '2026-01-01T00:00:00Z' },
    });
    expect(iat).toMatchObject({ ok: false, issues: [{ field: 'spec.hash' }] });
  });

  it("rejects a Workflow whose parameters or return value do not fit openEO's schema, naming the member", () => {
    const workflow = (spec: Record<string, unknown>) =>
      validateObject({
        apiVersion: API_VERSION,
        kind: 'Workflow',
        metadata: { name: 'w' },
        spec: { id: 'w', processGraph: {}, ...spec },
      });
    const number = { name: 'x', description: 'A number.', schema: { type: 'number' } };
    expect(workflow({ parameters: [number], returns: { schema: [{ type: 'number' }] } })).toMatchObject({ ok: true });
    expect(workflow({ parameters: [{ ...number, default: 2, optional: true, unit: 'm' }] })).toMatchObject({
      ok: true,
      object: { spec: { parameters: [{ default: 2, unit: 'm' }] } },
    });
    expect(workflow({ parameters: [null] })).toMatchObject({ ok: false, issues: [{ field: 'spec.parameters[0]' }] });
    expect(workflow({ parameters: 'x' })).toMatchObject({ ok: false, issues: [{ field: 'spec.parameters' }] });
    expect(workflow({ parameters: [{ name: 'x', schema: {} }] })).toMatchObject({
      ok: false,
      issues: [{ field: 'spec.parameters[0].description' }],
    });
    expect(workflow({ parameters: [number, number] })).toMatchObject({
      ok: false,
      issues: [{ field: 'spec.parameters[1].name', message: "'x' is declared twice" }],
    });
    expect(workflow({ returns: { schema: [] } })).toMatchObject({
      ok: false,
      issues: [{ field: 'spec.returns.schema' }],
    });
  });

  it('parses a status with KEP-1623 conditions', () => {
    const result = validateObject({
      apiVersion: API_VERSION,
      kind: 'DataSource',
      metadata: { name: 'sample' },
      spec: { datasetName: 'Sample', provider: { name: 'sample' } },
      status: {
        observedGeneration: 1,
        ingestable: true,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Succeeded',
            message: 'ok',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    });
    expect(result.ok).toBe(true);
  });
});
