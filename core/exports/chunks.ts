/**
 * A delivery's chunks, fixed by its first attempt: the payload's values (a job's dhis2-json result, or an
 * analytics table's values, `table-payload.ts`) mapped through the export (`prepare.ts`), then, when the export
 * deletes missing values, the target's values the payload no longer holds.
 */
import { readFile } from 'node:fs/promises';
import type { DeliveryTableSource } from '../resources/delivery/schema.ts';
import type { ExportSpec } from '../resources/export/schema.ts';
import { sha256Hex } from '../provenance/digest.ts';
import { RunError } from '../runs/errors.ts';
import { storeFile } from '../stores/layout.ts';
import type { Checkpoint, CheckpointChunk } from './checkpoint.ts';
import { readValues, type Dhis2Target } from './dhis2-client.ts';
import { scopeOf } from './dhis2-protocols.ts';
import { DEFAULT_COMBO, payloadSchema, valueKey, type DataValue } from './payload.ts';
import { prepareValues } from './prepare.ts';
import { readTablePayload } from './table-payload.ts';

/**
 * What a delivery's chunks come from: its payload file (relative to the storage root; the table version's file
 * for a table source) and its export.
 */
export interface DeliverySource {
  delivery: string;
  storageRoot: string;
  payload: string;
  table?: DeliveryTableSource | undefined;
  export: ExportSpec;
}

/** A job's saved dhis2-json payload: its data values and the digest of the file read. */
async function readJobPayload(
  input: DeliverySource,
): Promise<{ dataValues: DataValue[]; sha256: string; size: number }> {
  let text: string;
  try {
    text = await readFile(storeFile(input.storageRoot, input.payload), 'utf8');
  } catch (err) {
    throw new RunError('InvalidPayload', `The payload ${input.payload} cannot be read: ${(err as Error).message}.`);
  }
  let parsed;
  try {
    parsed = payloadSchema.safeParse(JSON.parse(text));
  } catch {
    throw new RunError('InvalidPayload', `The payload ${input.payload} is not JSON.`);
  }
  if (!parsed.success)
    throw new RunError(
      'InvalidPayload',
      `The payload ${input.payload} is not a data value set: ${parsed.error.message}`,
    );
  return { dataValues: parsed.data.dataValues, sha256: sha256Hex(text), size: Buffer.byteLength(text) };
}

/**
 * The values in chunks of at most `size`. Values of one org unit and period stay in one chunk (a tracker target's
 * event is sent whole), unless there are more of them than a chunk holds.
 */
function chunked(values: DataValue[], size: number, strategy: CheckpointChunk['strategy'], from: number) {
  const groups = new Map<string, DataValue[]>();
  for (const v of values) {
    const key = `${v.orgUnit}|${v.period}`;
    groups.set(key, [...(groups.get(key) ?? []), v]);
  }
  const chunks: DataValue[][] = [];
  for (const group of groups.values())
    for (let i = 0; i < group.length; i += size) {
      const part = group.slice(i, i + size);
      const last = chunks.at(-1);
      if (last && last.length + part.length <= size) last.push(...part);
      else chunks.push(part);
    }
  return chunks.map((chunk, i) => ({
    index: from + i,
    strategy,
    values: chunk,
    outcome: 'pending' as const,
    tries: 0,
  }));
}

/** The delivery's chunks, from the payload: upserts, then (rules.missingValues: delete) the target's extra values. */
export async function prepareCheckpoint(input: DeliverySource, target: Dhis2Target): Promise<Checkpoint> {
  const startedAt = new Date().toISOString();
  const payload = input.table
    ? await readTablePayload(storeFile(input.storageRoot, input.payload), input.table)
    : await readJobPayload(input);
  const { values, droppedPeriods } = prepareValues(payload.dataValues, input.export);
  let deletes: DataValue[] = [];
  if (input.export.rules.missingValues === 'delete' && values.length > 0) {
    const keys = new Set(values.map(valueKey));
    const combos = new Set(
      values.map((v) => `${v.categoryOptionCombo ?? DEFAULT_COMBO}|${v.attributeOptionCombo ?? DEFAULT_COMBO}`),
    );
    deletes = (await readValues(target, scopeOf(values))).filter(
      (v) =>
        !keys.has(valueKey(v)) &&
        combos.has(`${v.categoryOptionCombo ?? DEFAULT_COMBO}|${v.attributeOptionCombo ?? DEFAULT_COMBO}`),
    );
  }
  const size = input.export.target.chunkSize;
  const upserts = chunked(values, size, 'CREATE_AND_UPDATE', 0);
  return {
    delivery: input.delivery,
    startedAt,
    payload: { sha256: payload.sha256, size: payload.size },
    values: values.length + deletes.length,
    droppedPeriods,
    chunks: [...upserts, ...chunked(deletes, size, 'DELETE', upserts.length)],
    changelogEntries: 0,
  };
}
