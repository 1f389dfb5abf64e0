import { describe, expect, it } from 'vitest';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { build, type Built } from '../../test/build.ts';

const source = (name: string, temporalDirection: 'past' | 'future') => ({
  apiVersion: API_VERSION,
  kind: 'DataSource',
  metadata: { name, namespace: 'default' },
  spec: {
    datasetName: name,
    itemType: 'coverage',
    periodType: 'daily',
    provider: { name: 'sample' },
    temporalDirection,
    sync: { kind: 'temporal', availability: { rule: 'forecast-hours', hours: 48 } },
  },
});

const startAsync = (app: Built['app'], payload: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: '/ingestions', headers: { prefer: 'respond-async' }, payload });

describe('POST /ingestions start', () => {
  it('may be omitted for a forecast source: the run starts from now', async () => {
    const { app, cluster } = await build();
    await cluster.create(dataSourceKind, source('forecast', 'future'));
    const res = await startAsync(app, { dataset_id: 'forecast' });
    expect(res.statusCode).toBe(202);
    const run = await cluster.get<Ingestion>(ingestionKind, res.json().ingestion_id, 'default');
    expect(run?.spec).toMatchObject({ source: 'forecast', mode: 'ingestion' });
    expect(run?.spec.start).toBeUndefined();
  });

  it('is required for a historical source (400)', async () => {
    const { app, cluster } = await build();
    await cluster.create(dataSourceKind, source('history', 'past'));
    const res = await app.inject({ method: 'POST', url: '/ingestions', payload: { dataset_id: 'history' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'start is required for this data source' });
  });
});

describe('POST /ingestions with Prefer: respond-async', () => {
  it("answers 202 with spec 1's IngestionResponse, without a dataset, and the job record in Location and links", async () => {
    const { app, cluster } = await build();
    await cluster.create(dataSourceKind, source('history', 'past'));
    const res = await startAsync(app, { dataset_id: 'history', start: '2024-01-01', end: '2024-01-31' });
    expect(res.statusCode).toBe(202);
    const body = res.json() as { ingestion_id: string };
    const job = `/ingestions/jobs/${body.ingestion_id}`;
    expect(body).toEqual({
      ingestion_id: expect.stringMatching(/^history-[0-9a-f]{8}$/),
      status: 'accepted',
      dataset: null,
      links: [
        { href: job, rel: 'monitor', title: 'Job record' },
        { href: `/ingestions/${body.ingestion_id}`, rel: 'self', title: 'Ingestion' },
      ],
    });
    expect(res.headers).toMatchObject({ location: job, 'preference-applied': 'respond-async' });
    expect((await app.inject({ url: job })).json()).toMatchObject({ jobID: body.ingestion_id, processID: 'ingestion' });
  });
});

describe('one writer per dataset', () => {
  it.each([10, 50])('gives %i concurrent POST /ingestions one run and 409s naming it', async (count) => {
    const { app, cluster } = await build();
    await cluster.create(dataSourceKind, source('history', 'past'));
    const responses = await Promise.all(
      Array.from({ length: count }, () =>
        startAsync(app, { dataset_id: 'history', start: '2024-01-01', end: '2024-01-31', overwrite: true }),
      ),
    );
    const accepted = responses.filter((r) => r.statusCode === 202);
    expect(accepted).toHaveLength(1);
    const run = accepted[0]!.json().ingestion_id as string;
    for (const refused of responses.filter((r) => r.statusCode !== 202)) {
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toEqual({
        detail: `Run ${run} is already writing dataset history; wait for it or cancel it`,
      });
    }
    expect(
      (await cluster.list<Ingestion>(ingestionKind, { namespace: 'default' })).items.map((r) => r.metadata.name),
    ).toEqual([run]);
  });
});
