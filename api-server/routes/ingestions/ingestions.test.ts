import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../../core/cluster/port.ts';
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

  it('is required for a historical source (422)', async () => {
    const { app, cluster } = await build();
    await cluster.create(dataSourceKind, source('history', 'past'));
    const res = await app.inject({ method: 'POST', url: '/ingestions', payload: { dataset_id: 'history' } });
    expect(res.statusCode).toBe(422);
    const msg = 'start is required for this data source';
    expect(res.json()).toEqual({ detail: [{ loc: ['body', 'start'], msg, type: 'invalid_value' }] });
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

/**
 * The operator's part for runs whose periods the current version holds, as fast as it can be: each run succeeds,
 * reusing the version, as soon as it is created, so the writer claim is free again at once.
 */
async function reuseEveryRun(cluster: Cluster, signal: AbortSignal): Promise<void> {
  try {
    for await (const event of cluster.watch<Ingestion>(ingestionKind, { namespace: 'default', signal }))
      if (event.type === 'ADDED' && !event.object.status?.phase)
        await cluster.patchStatus(
          ingestionKind,
          event.object.metadata.name,
          { type: 'merge', body: { status: { phase: 'successful', result: { reused: true } } } },
          'default',
        );
  } catch (err) {
    if (!signal.aborted) throw err;
  }
}

describe('identical synchronous ingestions', () => {
  it('make one run when it ends at once: of 20 concurrent requests one gets 200, 19 get 409 naming the run', async () => {
    const { app, cluster } = await build();
    await cluster.create(dataSourceKind, source('history', 'past'));
    const operator = new AbortController();
    const reusing = reuseEveryRun(cluster, operator.signal);
    const request = { dataset_id: 'history', start: '2024-01-01', end: '2024-01-31' };
    // Sent over 200 ms, as clients over the network arrive: later ones find the first run already ended.
    const responses = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        await sleep(10 * i);
        return app.inject({ method: 'POST', url: '/ingestions', payload: request });
      }),
    );
    const runs = (await cluster.list<Ingestion>(ingestionKind, { namespace: 'default' })).items;
    expect(runs.map((r) => r.metadata.name)).toHaveLength(1);
    const run = runs[0]!.metadata.name;
    const answered = responses.map((r) => r.statusCode).sort();
    expect(answered).toEqual([200, ...Array<number>(19).fill(409)]);
    expect(responses.find((r) => r.statusCode === 200)!.json()).toMatchObject({
      ingestion_id: run,
      status: 'successful',
    });
    for (const refused of responses.filter((r) => r.statusCode === 409))
      expect(refused.json().detail).toMatch(new RegExp(`^Run ${run} (is already writing|already carried out)`));

    // Later, the same request again is the same request while the dataset has not changed; another is not.
    expect((await app.inject({ method: 'POST', url: '/ingestions', payload: request })).statusCode).toBe(409);
    const other = await app.inject({ method: 'POST', url: '/ingestions', payload: { ...request, end: '2024-02-29' } });
    expect(other.statusCode).toBe(200);
    operator.abort();
    await reusing;
  });

  it('start again after the run of the same request failed', async () => {
    const { app, cluster } = await build();
    await cluster.create(dataSourceKind, source('history', 'past'));
    const request = { dataset_id: 'history', start: '2024-01-01', end: '2024-01-31' };
    const first = await app.inject({
      method: 'POST',
      url: '/ingestions',
      headers: { prefer: 'respond-async' },
      payload: request,
    });
    const failed = first.json().ingestion_id as string;
    await cluster.patchStatus(
      ingestionKind,
      failed,
      { type: 'merge', body: { status: { phase: 'failed' } } },
      'default',
    );
    const retries = await Promise.all(
      Array.from({ length: 5 }, () =>
        app.inject({ method: 'POST', url: '/ingestions', headers: { prefer: 'respond-async' }, payload: request }),
      ),
    );
    expect(retries.map((r) => r.statusCode).sort()).toEqual([202, 409, 409, 409, 409]);
    const names = (await cluster.list<Ingestion>(ingestionKind, { namespace: 'default' })).items.map(
      (r) => r.metadata.name,
    );
    expect(names.sort()).toEqual([failed, retries.find((r) => r.statusCode === 202)!.json().ingestion_id].sort());
  });
});
