import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDhis2Server, type Dhis2Server } from '../../test/support/dhis2-server.ts';
import {
  authorizationOf,
  importEvents,
  importTaskSummary,
  importValues,
  readEvents,
  readValues,
  type Dhis2Target,
  type TrackerEvent,
} from './dhis2-client.ts';

const value = (orgUnit: string, v: string) => ({ dataElement: 'DEa00000001', period: '202401', orgUnit, value: v });
const upsert = { dryRun: false, async: false, strategy: 'CREATE_AND_UPDATE' } as const;

let server: Dhis2Server;
let target: Dhis2Target;

describe('the DHIS2 client', () => {
  beforeAll(async () => {
    server = await startDhis2Server({
      auth: { token: 'd2pat_secret' },
      orgUnits: ['OUa00000001', 'OUa00000002'],
      slowMs: 3_000,
    });
    target = { url: server.url, authorization: authorizationOf({ token: 'd2pat_secret' }), timeoutMs: 2_000 };
  });
  afterAll(() => server.close());

  it('reads an import summary, conflicts included, and reads values back', async () => {
    const answer = await importValues(target, [value('OUa00000001', '1'), value('OUnknown001', '2')], upsert);
    expect(answer).toEqual({
      kind: 'summary',
      summary: {
        status: 'WARNING',
        importCount: { imported: 1, updated: 0, ignored: 1, deleted: 0 },
        conflicts: [expect.objectContaining({ object: 'OUnknown001', errorCode: 'E7612', indexes: [1] })],
      },
    });
    expect(
      await readValues(target, {
        dataElements: ['DEa00000001'],
        periods: ['202401'],
        orgUnits: ['OUa00000001', 'OUa00000002'],
      }),
    ).toEqual([value('OUa00000001', '1')]);
  });

  it('follows an asynchronous import to its summary', async () => {
    const answer = await importValues(target, [value('OUa00000002', '5')], { ...upsert, async: true });
    expect(answer.kind).toBe('task');
    const id = (answer as { id: string }).id;
    let summary;
    for (let polls = 0; polls < 10 && !summary; polls++) summary = await importTaskSummary(target, id);
    expect(summary?.importCount.imported).toBe(1);
  });

  it('tells applied-nothing from unknown outcomes', async () => {
    server.fail('status-503');
    expect((await importValues(target, [value('OUa00000001', '2')], upsert)).kind).toBe('not-applied');
    server.fail('slow');
    expect(await importValues(target, [value('OUa00000001', '3')], upsert)).toMatchObject({
      kind: 'unknown',
      message: /no answer within 2000 ms/,
    });
    server.fail('drop-after-apply');
    expect((await importValues(target, [value('OUa00000001', '4')], upsert)).kind).toBe('unknown');
    server.fail('drop-before-apply');
    expect((await importValues(target, [value('OUa00000001', '5')], upsert)).kind).toBe('unknown');
    expect(server.imports.slice(-4).map((r) => r.applied)).toEqual([false, true, true, false]);
  });

  it('says a refused credential is refused, and an unreachable server applied nothing', async () => {
    const refused = await importValues(
      { ...target, authorization: 'ApiToken d2pat_wrong' },
      [value('OUa00000001', '1')],
      upsert,
    );
    expect(refused).toMatchObject({ kind: 'refused', status: 401 });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(
      (await importValues({ ...target, url: `http://127.0.0.1:${port}` }, [value('OUa00000001', '1')], upsert)).kind,
    ).toBe('not-applied');
  });

  it('answers unknown for a 500 without a summary', async () => {
    const broken = createServer((_req, res) => res.writeHead(500).end('boom'));
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
    expect(await importValues({ ...target, url }, [value('OUa00000001', '1')], upsert)).toMatchObject({
      kind: 'unknown',
      message: /HTTP 500/,
    });
    await new Promise((resolve) => broken.close(resolve));
  });

  it('imports events, refusals by event uid, asynchronously too, and reads their data values back', async () => {
    const event = (uid: string, orgUnit: string, value: string): TrackerEvent => ({
      event: uid,
      program: 'PRprog00001',
      programStage: 'PSstage0001',
      orgUnit,
      occurredAt: '2024-01-01',
      status: 'COMPLETED',
      dataValues: [{ dataElement: 'DEa00000001', value }],
    });
    const sync = await importEvents(
      target,
      [event('EVa00000001', 'OUa00000001', '1'), event('EVa00000002', 'OUnknown001', '2')],
      {
        dryRun: false,
        async: false,
      },
    );
    expect(sync).toEqual({
      kind: 'summary',
      summary: {
        status: 'WARNING',
        importCount: { imported: 1, updated: 0, ignored: 1, deleted: 0 },
        conflicts: [expect.objectContaining({ object: 'EVa00000002', errorCode: 'E1011' })],
      },
    });
    const dry = await importEvents(target, [event('EVa00000003', 'OUa00000002', '3')], { dryRun: true, async: false });
    expect(dry).toMatchObject({ kind: 'summary', summary: { importCount: { imported: 1 } } });
    const queued = await importEvents(target, [event('EVa00000001', 'OUa00000001', '4')], {
      dryRun: false,
      async: true,
    });
    expect(queued.kind).toBe('task');
    let summary;
    for (let polls = 0; polls < 10 && !summary; polls++)
      summary = await importTaskSummary(target, (queued as { id: string }).id, 'tracker');
    expect(summary?.importCount.updated).toBe(1);
    const read = await readEvents(target, ['EVa00000001', 'EVa00000002', 'EVa00000003']);
    expect([...read]).toEqual([['EVa00000001', new Map([['DEa00000001', '4']])]]);
  });
});
