/**
 * An analytics table's values as a delivery's payload: one statistic of one period type over the periods (and org
 * units) the delivery names, from the table version it names, read as the API server reads a table
 * (`core/analytics/table-file.ts`).
 */
import { downloadDigestOf } from '../analytics/download-digest.ts';
import { encodeAnalyticsTable, readAnalyticsTable, type AnalyticsRow } from '../analytics/table-file.ts';
import { formatValue } from '../processing/results/dhis2-json.ts';
import type { DeliveryTableSource } from '../resources/delivery/schema.ts';
import { RunError } from '../runs/errors.ts';
import type { DataValue } from './payload.ts';

/** The data element of a table's values in the payload, which the export's `mapping.dataElements` may map. */
export const tableDataElement = (source: Pick<DeliveryTableSource, 'name' | 'statistic'>) =>
  `${source.name}.${source.statistic}`;

/** The version's values the source selects, rows without a value left out; `file`: the version's path. */
export async function readTablePayload(
  file: string,
  source: DeliveryTableSource,
): Promise<{ dataValues: DataValue[]; sha256: string; size: number }> {
  let rows: AnalyticsRow[];
  try {
    rows = await readAnalyticsTable(file);
  } catch (err) {
    throw new RunError(
      'InvalidPayload',
      `Version ${source.version.id} of analytics table ${source.name} cannot be read: ${(err as Error).message}.`,
    );
  }
  const periods = new Set(source.periods);
  const orgUnits = source.orgUnits && new Set(source.orgUnits);
  if (orgUnits) {
    const present = new Set(rows.map((row) => row.ou));
    const unknown = [...orgUnits].filter((ou) => !present.has(ou));
    if (unknown.length > 0)
      throw new RunError(
        'InvalidPayload',
        `Analytics table ${source.name} has no org unit ${unknown.join(', ')} (version ${source.version.id}).`,
      );
  }
  const dataElement = tableDataElement(source);
  const dataValues = rows.flatMap((row) =>
    row.stat === source.statistic &&
    row.periodType === source.periodType &&
    periods.has(row.pe) &&
    (!orgUnits || orgUnits.has(row.ou)) &&
    row.value !== null
      ? [{ dataElement, period: row.pe, orgUnit: row.ou, value: formatValue(row.value) }]
      : [],
  );
  // The checksum is of the version as one Parquet file, the bytes `GET /analytics/{table}.parquet` answers while
  // the version is served: a version is stored as a file per month and year.
  return { dataValues, ...(await downloadDigestOf(file, () => encodeAnalyticsTable(rows))) };
}
