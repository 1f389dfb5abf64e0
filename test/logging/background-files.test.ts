/**
 * Spec 3's log files end to end in embedded mode: an ingestion, a sync and a feature
 * refresh started over HTTP with an `X-Request-ID`, run by real worker processes; each run's lines, from the
 * operator that handled it and from its worker, are in `stratus-data-sync.log` with that request's `xRequestID`,
 * and in `stratus.log` too.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { startEmbedded } from '../support/embedded.ts';

let running: RunningEmbedded;
let dataDir: string;

interface Line {
  pid: number;
  module?: string;
  run?: string;
  xRequestID?: string;
  msg: string;
}

const logLines = async (name: string): Promise<{ raw: string[]; lines: Line[] }> => {
  const raw = (await readFile(join(dataDir, 'logs', name), 'utf8')).split('\n').filter(Boolean);
  return { raw, lines: raw.map((l) => JSON.parse(l) as Line) };
};

async function post(url: string, requestId: string, payload: unknown) {
  const res = await fetch(`${running.url}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify(payload),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get('x-request-id')).toBe(requestId);
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  // The logs go to the data directory, as `make run`'s do when STRATUS_HOME is not set.
  delete process.env.STRATUS_HOME;
  dataDir = await mkdtemp(join(tmpdir(), 'stratus-logging-e2e-'));
  running = await startEmbedded(dataDir, { examples: false });
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('background log files', () => {
  it('hold the lines of the runs requests started, with their xRequestID, from the operator and the workers', async () => {
    const ingestion = await post('/ingestions', 'ingest1', {
      dataset_id: 'sample',
      start: '2024-01-01',
      end: '2024-01-04',
    });
    expect(ingestion.status).toBe('successful');
    const sync = await post('/sync/sample', 'sync1', { end: '2024-01-08' });
    expect(sync).toMatchObject({ status: 'completed' });
    const refresh = await post('/features/sample-districts/refresh', 'refresh1', {});
    expect(refresh).toMatchObject({ id: 'sample-districts' });
    await running.stop();

    expect((await readdir(join(dataDir, 'logs'))).filter((n) => !n.startsWith('.')).sort()).toEqual([
      'stratus-analytics-table.log',
      'stratus-data-exchange.log',
      'stratus-data-sync.log',
      'stratus.log',
    ]);
    const sync_ = await logLines('stratus-data-sync.log');
    const main = await logLines('stratus.log');
    for (const [requestId, runs] of [
      ['ingest1', 'ingestion'],
      ['sync1', 'sync'],
      ['refresh1', 'feature refresh'],
    ]) {
      const lines = sync_.lines.filter((l) => l.xRequestID === requestId);
      const operator = lines.filter((l) => l.pid === process.pid).map((l) => l.msg);
      const worker = lines.filter((l) => l.pid !== process.pid).map((l) => l.msg);
      expect(operator, `${runs}: the operator's lines`).toEqual(
        expect.arrayContaining(['worker attempt started', 'run successful']),
      );
      expect(worker, `${runs}: the worker's lines`).toEqual(
        expect.arrayContaining(['worker started', 'worker succeeded']),
      );
      expect(new Set(lines.map((l) => l.run)).size, `${runs}: one run`).toBe(1);
      expect(lines.every((l) => l.module === 'data-sync')).toBe(true);
      // The API server's lines of the request carry the same xRequestID, in the main log only.
      expect(main.lines.some((l) => l.xRequestID === requestId && l.module === 'api-server')).toBe(true);
    }
    // Every background line is in the main log, whole and as written.
    const inMain = new Set(main.raw);
    expect(sync_.raw.filter((l) => !inMain.has(l))).toEqual([]);
    expect(sync_.raw.length).toBeGreaterThan(12);
    // Three runs, each a worker process: seconds apiece on a loaded machine.
  }, 120_000);
});
