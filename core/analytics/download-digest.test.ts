import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTablePayload } from '../exports/table-payload.ts';
import { sha256Hex } from '../provenance/digest.ts';
import { analyticsTablePath, analyticsTableStaging } from '../stores/layout.ts';
import { periodKey } from './build.ts';
import { readDownloadDigest } from './download-digest.ts';
import { publishAnalyticsBuild } from './publish.ts';
import { columnsOfRows, encodeAnalyticsTable, readAnalyticsTable, type AnalyticsRow } from './table-file.ts';

/** Two org units' monthly sums of the months of `years`, the value telling the source version apart. */
const rowsOf = (years: string[], sourceVersion: string): AnalyticsRow[] =>
  ['A', 'B'].flatMap((ou) =>
    years.flatMap((year) =>
      ['01', '02'].map((month) => ({
        ou,
        periodType: 'monthly' as const,
        pe: `${year}${month}`,
        stat: 'sum' as const,
        value: Number(year) + Number(month) / 100 + (sourceVersion === 'v2' ? 0.5 : 0),
        sourceVersion,
      })),
    ),
  );

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'analytics-download-digest-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const at = (id: string) => ({
  staging: analyticsTableStaging(root, 't', id),
  target: join(root, analyticsTablePath('t', id)),
});

/** The digest of the version as the download encodes it, from its files. */
async function downloaded(dir: string) {
  const bytes = encodeAnalyticsTable(await readAnalyticsTable(dir));
  return { sha256: sha256Hex(bytes), size: bytes.byteLength };
}

const source = {
  name: 't',
  version: { id: 'v1', path: analyticsTablePath('t', 'v1') },
  statistic: 'sum' as const,
  periodType: 'monthly' as const,
  periods: ['202401'],
};

describe('the digest of a table version’s download', () => {
  it('is written when a full build publishes the version, and kept by the first delivery of an incremental one', async () => {
    const full = rowsOf(['2022', '2023', '2024'], 'v1');
    await publishAnalyticsBuild({ columns: columnsOfRows(full), periods: new Set() }, at('v1'));
    expect(await readDownloadDigest(at('v1').target)).toEqual(await downloaded(at('v1').target));

    // Only 2024's months are computed again: 2022 and 2023 are linked. Reading them back to digest the whole
    // version is left to the first delivery, which keeps the digest, of the whole version, for the next.
    const changed = rowsOf(['2024'], 'v2');
    const periods = new Set(changed.map((row) => periodKey(row.periodType, row.pe)));
    const published = await publishAnalyticsBuild({ columns: columnsOfRows(changed), periods }, at('v2'), {
      dir: at('v1').target,
      rows: full.length,
    });
    expect(published.linked).toEqual(
      ['2022', '2023'].flatMap((year) => [`year=${year}/01.parquet`, `year=${year}/02.parquet`]),
    );
    expect(await readDownloadDigest(at('v2').target)).toBeUndefined();
    const whole = await downloaded(at('v2').target);
    const v2 = { ...source, version: { id: 'v2', path: analyticsTablePath('t', 'v2') } };
    expect(await readTablePayload(at('v2').target, v2)).toMatchObject(whole);
    expect(await readDownloadDigest(at('v2').target)).toEqual(whole);
    expect(whole).not.toEqual(await readDownloadDigest(at('v1').target));
  });

  it('is what a delivery reads as its payload’s checksum, and computed only for a version without it', async () => {
    await publishAnalyticsBuild({ columns: columnsOfRows(rowsOf(['2024'], 'v1')), periods: new Set() }, at('v1'));
    const digest = await downloaded(at('v1').target);
    expect(await readTablePayload(at('v1').target, source)).toMatchObject(digest);

    // A digest file that says otherwise is believed: the version is not encoded again.
    const written = { sha256: 'ab'.repeat(32), size: 7 };
    await writeFile(join(at('v1').target, 'download.json'), JSON.stringify(written));
    expect(await readTablePayload(at('v1').target, source)).toMatchObject(written);

    await rm(join(at('v1').target, 'download.json'));
    expect(await readDownloadDigest(at('v1').target)).toBeUndefined();
    expect(await readTablePayload(at('v1').target, source)).toMatchObject(digest);
  });
});
