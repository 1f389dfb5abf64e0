import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryCube } from '../cube/memory.ts';
import { directorySink } from './sink.ts';

describe('directorySink', () => {
  it("writes a file its format writes with a warning, and hands the warning on (the job's log)", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stratus-sink-'));
    try {
      const cube = memoryCube({
        dimensions: [
          { name: 'geometry', type: 'geometry', labels: ['OU_A'], crs: 'EPSG:4326' },
          { name: 't', type: 'temporal', labels: ['2024-01-01', '2024-03-01'] },
        ],
        data: Float64Array.from([1, 3]),
        geometries: [{ id: 'OU_A', geometry: { type: 'Point', coordinates: [0, 0] }, properties: {} }],
      });
      const warnings: string[] = [];
      const sink = directorySink(dir, 1e6, undefined, undefined, (message) => warnings.push(message));
      await sink.save(cube, 'chap-csv', { continuity: 'warn', period_type: 'monthly' });
      expect(sink.saved.map((s) => s.file.name)).toEqual(['result.chap.csv']);
      expect(await readFile(join(dir, 'result.chap.csv'), 'utf8')).toBe(
        'time_period,location,value\r\n2024-01,OU_A,1\r\n2024-02,OU_A,\r\n2024-03,OU_A,3\r\n',
      );
      expect(warnings).toEqual([
        'chap-csv: 1 gap written as empty values (the first: period 2024-02 has no time step).',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
