/**
 * Exports from an analytics table (embedded, with the example table over the sample districts, and the
 * DHIS2-compatible test server): `POST /exports/{id}` with `table` delivers exactly the values `GET /analytics/{table}`
 * answers for the statistic, period type, periods (relative ones resolved) and org units asked for, records the
 * table version in the delivery's provenance, sends that version though newer ones were published while it waited,
 * and refuses a bad table, statistic, period type, period or org unit before any delivery exists.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import {
  analyticsTableKind,
  type AnalyticsTable,
  type AnalyticsTableVersion,
} from '../../core/resources/analytics-table/schema.ts';
import { sha256Hex, sha256Multihash } from '../../core/provenance/digest.ts';
import { deliveryKind } from '../../core/resources/delivery/schema.ts';
import { API_VERSION } from '../../core/resources/registry.ts';
import { defaultRunOptions } from '../../core/runs/options.ts';
import { startDhis2Server, valueKey, type Dhis2Server } from '../support/dhis2-server.ts';
import { startEmbedded, untilExamplesServed } from '../support/embedded.ts';
import { eventually } from '../support/eventually.ts';

const TABLE = 'sample-districts-monthly';
/** The data elements the export maps the table's values to (`<table>.<statistic>`). */
const SUMS = 'DEtable0001';
const MEANS = 'DEtable0002';

let dataDir: string;
let running: RunningEmbedded;
let server: Dhis2Server;
let served: AnalyticsTableVersion;

interface DeliveryRecord {
  status: string;
  error: unknown;
  job_id: string | null;
  table: { name: string; version: string; periods: string[]; org_units: string[] | null } | null;
  report: { values: number } | null;
}

async function deliver(body: unknown, key?: string) {
  const response = await fetch(`${running.url}/exports/districts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key !== undefined && { 'idempotency-key': key }) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The record of delivery `id` once it ended. */
const ended = (id: string, timeoutMs = 60_000) =>
  eventually(
    async () => {
      const found = (await (await fetch(`${running.url}/exports/districts/jobs/${id}`)).json()) as DeliveryRecord;
      return found.status === 'successful' || found.status === 'failed' ? found : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );

async function delivered(table: Record<string, unknown>) {
  const accepted = await deliver({ table });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  const id = accepted.body.delivery_job_id as string;
  return { id, record: await ended(id) };
}

/** The table's values as `GET /analytics/{table}` answers them, keyed as the target stores them under `dataElement`. */
async function answered(query: string, dataElement: string): Promise<Map<string, number>> {
  const answer = (await (await fetch(`${running.url}/analytics/${TABLE}?${query}`)).json()) as { rows: string[][] };
  return new Map(
    answer.rows.map(([, orgUnit, period, value]) => [
      valueKey({ dataElement, period: period!, orgUnit: orgUnit! }),
      Number(value),
    ]),
  );
}

const atTarget = (dataElement: string) =>
  new Map(
    [...server.values.values()]
      .filter((v) => v.dataElement === dataElement)
      .map((v) => [valueKey(v), Number(v.value)] as const),
  );

function expectSameValues(target: Map<string, number>, table: Map<string, number>) {
  expect(table.size).toBeGreaterThan(0);
  expect([...target.keys()].sort()).toEqual([...table.keys()].sort());
  // The payload carries six decimals, as every dhis2-json payload does.
  for (const [key, value] of table) expect(target.get(key), key).toBeCloseTo(value, 5);
}

describe('exports from an analytics table (embedded, DHIS2-compatible test server)', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-table-exports-'));
    server = await startDhis2Server({ auth: { user: 'admin', password: 'district' } });
    running = await startEmbedded(dataDir, {
      operator: { runs: { ...defaultRunOptions, backoff: { retryBaseSeconds: 1, retryCapSeconds: 1 } } },
      manifests: {
        'secret.yaml': JSON.stringify({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'dhis2', namespace: 'default' },
          stringData: { username: 'admin', password: 'district' },
        }),
        'districts.yaml': JSON.stringify({
          apiVersion: API_VERSION,
          kind: 'Export',
          metadata: { name: 'districts', namespace: 'default' },
          spec: {
            target: { type: 'dhis2-data-value-sets', url: server.url, credentialsSecret: 'dhis2', chunkSize: 20 },
            mapping: { dataElements: { [`${TABLE}.sum`]: SUMS, [`${TABLE}.mean`]: MEANS } },
          },
        }),
      },
    });
    await untilExamplesServed(running);
    served = await eventually(
      async () => (await running.cluster.get<AnalyticsTable>(analyticsTableKind, TABLE, 'default'))?.status?.table,
      { timeoutMs: 120_000, intervalMs: 250 },
    );
  }, 180_000);

  afterAll(async () => {
    await running?.stop();
    await server?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('delivers exactly the table’s values of the statistic and periods, and records the table version in the provenance', async () => {
    const { id, record } = await delivered({
      name: TABLE,
      statistic: 'sum',
      period_type: 'monthly',
      periods: ['202401', '202402', '202403'],
    });
    expect(record.status).toBe('successful');
    expect(record.job_id).toBeNull();
    expect(record.table).toMatchObject({ name: TABLE, version: served.id, periods: ['202401', '202402', '202403'] });
    const expected = await answered('pe=202401;202402;202403&stat=sum', SUMS);
    expectSameValues(atTarget(SUMS), expected);
    expect(record.report?.values).toBe(expected.size);

    const provenance = (await (await fetch(`${running.url}/exports/districts/jobs/${id}/provenance`)).json()) as {
      properties: { 'stratus:delivery': { table: Record<string, unknown>; job?: string } };
      assets: { payload: { href: string; type: string; 'file:checksum': string } };
    };
    expect(provenance.properties['stratus:delivery'].table).toEqual({
      name: TABLE,
      version: served.id,
      statistic: 'sum',
      periodType: 'monthly',
      periods: ['202401', '202402', '202403'],
    });
    expect(provenance.properties['stratus:delivery'].job).toBeUndefined();
    expect(provenance.assets.payload.type).toBe('application/vnd.apache.parquet');
    // The whole version as one Parquet file, as its download answers it.
    const download = new Uint8Array(await (await fetch(provenance.assets.payload.href)).arrayBuffer());
    expect(provenance.assets.payload['file:checksum']).toBe(sha256Multihash(sha256Hex(download)));
  });

  it('resolves a relative period and delivers only the org units named', async () => {
    const orgUnits = [...(await answered('pe=2024&stat=mean', MEANS)).keys()].map((key) => key.split('|')[2]!);
    const chosen = orgUnits.slice(0, 2);
    // LAST_10_YEARS holds 2024, the sample's year, until 2034.
    const { record } = await delivered({
      name: TABLE,
      statistic: 'mean',
      period_type: 'yearly',
      periods: ['LAST_10_YEARS'],
      org_units: chosen,
    });
    expect(record.status).toBe('successful');
    expect(record.table).toMatchObject({ periods: ['2024'], org_units: chosen });
    expectSameValues(atTarget(MEANS), await answered(`ou=${chosen.join(';')}&pe=2024&stat=mean`, MEANS));
  });

  it('refuses a bad table, statistic, period type, period or org unit, and a request with both or neither source, before any delivery', async () => {
    const before = (await running.cluster.list(deliveryKind, { namespace: 'default' })).items.length;
    const imports = server.imports.length;
    const table = { name: TABLE, statistic: 'sum', period_type: 'monthly', periods: ['202401'] };
    const refusals: [unknown, number, RegExp][] = [
      [{ table: { ...table, name: 'no-such-table' } }, 404, /Analytics table no-such-table not found/],
      [{ table: { ...table, period_type: 'daily' } }, 400, /period_type daily is not a period type of table/],
      [{ table: { ...table, periods: ['202501'] } }, 400, /periods 202501 is not a monthly period of table/],
      [{ table: { ...table, periods: ['2024'] } }, 400, /periods 2024 is not a monthly period of table/],
      [{ table: { ...table, periods: ['LAST_12_WEEKS'] } }, 400, /LAST_12_WEEKS .* holds no monthly period/],
      [{ table: { ...table, periods: ['SOMETIME'] } }, 400, /SOMETIME is neither a DHIS2 period id/],
      [
        { table: { ...table, org_units: ['no-such-district', 'nor-this-one'] } },
        400,
        /org_units no-such-district, nor-this-one are not org units of table sample-districts-monthly/,
      ],
      [{ table: { ...table, statistic: 'median' } }, 422, /statistic/],
      [{ table, job_id: 'some-job' }, 422, /exactly one of job_id and table/],
      [{ dry_run: true }, 422, /exactly one of job_id and table/],
    ];
    for (const [body, status, message] of refusals) {
      const refused = await deliver(body);
      expect(refused.status, JSON.stringify(body)).toBe(status);
      expect(JSON.stringify(refused.body.detail), JSON.stringify(body)).toMatch(message);
    }
    expect((await running.cluster.list(deliveryKind, { namespace: 'default' })).items).toHaveLength(before);
    expect(server.imports).toHaveLength(imports);
  });

  it('delivers the version it was asked for, the same bytes, though two newer versions were published while it waited', async () => {
    const download = async () =>
      new Uint8Array(await (await fetch(`${running.url}/analytics/${TABLE}.parquet`)).arrayBuffer());
    const asked = (await running.cluster.get<AnalyticsTable>(analyticsTableKind, TABLE, 'default'))!.status!.table!;
    const checksum = sha256Multihash(sha256Hex(await download()));
    // The target refuses every import until the table was rebuilt twice: the first delivery retries, and the
    // second waits behind it without having read its version.
    server.failEvery(() => 'status-503');
    const table = { name: TABLE, statistic: 'sum', period_type: 'monthly', periods: ['202401'] };
    const ahead = await deliver({ table });
    const waiting = await deliver({ table: { ...table, statistic: 'mean' } });
    expect([ahead.status, waiting.status]).toEqual([202, 202]);
    let newest = asked.id;
    try {
      // A new spec generation rebuilds the table; the second build removes what the history limit no longer keeps.
      for (const tableHistoryLimit of [3, 2]) {
        await running.cluster.patch(
          analyticsTableKind,
          TABLE,
          { type: 'merge', body: { spec: { tableHistoryLimit } } },
          'default',
        );
        const previous = newest;
        newest = await eventually(
          async () => {
            const id = (await running.cluster.get<AnalyticsTable>(analyticsTableKind, TABLE, 'default'))?.status?.table
              ?.id;
            return id !== previous ? id : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 100 },
        );
      }
    } finally {
      server.failEvery(undefined);
    }
    const id = waiting.body.delivery_job_id as string;
    const record = await ended(id, 120_000);
    expect(record.status, JSON.stringify(record.error)).toBe('successful');
    expect(record.table).toMatchObject({ version: asked.id });
    const provenance = (await (await fetch(`${running.url}/exports/districts/jobs/${id}/provenance`)).json()) as {
      assets: { payload: { 'file:checksum': string } };
    };
    expect(provenance.assets.payload['file:checksum']).toBe(checksum);
  }, 240_000);

  it('keeps the idempotency rules: the same table request is the same delivery, other periods a conflict', async () => {
    const table = { name: TABLE, statistic: 'sum', period_type: 'yearly', periods: ['2024'] };
    const first = await deliver({ table, dry_run: true }, 'table-key');
    expect(first.status).toBe(202);
    const again = await deliver({ table, dry_run: true }, 'table-key');
    expect(again.body).toMatchObject({ delivery_job_id: first.body.delivery_job_id, reused: true });
    const other = await deliver({ table: { ...table, periods: ['THIS_YEAR'] }, dry_run: true }, 'table-key');
    expect(other.status).toBe(409);
    expect(String(other.body.detail)).toMatch(`table ${TABLE}`);
  });
});
