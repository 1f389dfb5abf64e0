/**
 * How a delivery talks to its kind of DHIS2 target: the aggregate protocol sends data value sets, the tracker
 * protocol sends the same values as events. Values are keyed alike for both (`valueKey`): a tracker target's
 * event is the org unit and period of its values, so the rest of the delivery need not know which it talks to.
 */
import { createHash } from 'node:crypto';
import type { CheckpointChunk } from './checkpoint.ts';
import {
  importEvents,
  importValues,
  readEvents,
  readValues,
  type Dhis2Target,
  type ImportAnswer,
  type ImportSummary,
  type TrackerEvent,
} from './dhis2-client.ts';
import { valueKey, type DataValue } from './payload.ts';
import { parseDhis2Period } from '../periods/dhis2.ts';

export interface Protocol {
  kind: 'aggregate' | 'tracker';
  send(chunk: CheckpointChunk, dryRun: boolean): Promise<ImportAnswer>;
  /** The target's values for the keys of `values`, by `valueKey`. */
  current(values: DataValue[]): Promise<Map<string, string>>;
  /** The chunk's values that a conflict names (its indexes for data values, its uid for events). */
  conflicted(chunk: CheckpointChunk, conflict: ImportSummary['conflicts'][number]): number[];
}

/** What names a tracker delivery's events: the export, and the event program of its target. */
export interface TrackerScope {
  namespace: string;
  exportId: string;
  program?: { uid: string; programStage: string };
}

/** The data elements, periods and org units of `values`: the scope of a read of the target's values. */
export function scopeOf(values: DataValue[]) {
  const distinct = (pick: (v: DataValue) => string) => [...new Set(values.map(pick))];
  return {
    dataElements: distinct((v) => v.dataElement),
    periods: distinct((v) => v.period),
    orgUnits: distinct((v) => v.orgUnit),
  };
}

export function aggregateProtocol(target: Dhis2Target, async: boolean): Protocol {
  return {
    kind: 'aggregate',
    send: (chunk, dryRun) => importValues(target, chunk.values, { dryRun, async, strategy: chunk.strategy }),
    current: async (values) => {
      const wanted = new Set(values.map(valueKey));
      const found = await readValues(target, scopeOf(values));
      return new Map(found.filter((v) => wanted.has(valueKey(v))).map((v) => [valueKey(v), v.value]));
    },
    conflicted: (_chunk, conflict) => conflict.indexes ?? [],
  };
}

export function trackerProtocol(target: Dhis2Target, async: boolean, input: TrackerScope): Protocol {
  const program = input.program!;
  // One event per org unit and period, its uid derived from them: a later delivery updates the same event.
  const eventOf = (v: DataValue) =>
    `S${createHash('sha256').update(`${input.namespace}/${input.exportId}/${program.uid}/${v.orgUnit}/${v.period}`).digest('hex').slice(0, 10)}`;
  const events = (values: DataValue[]): TrackerEvent[] => {
    const byUid = new Map<string, TrackerEvent>();
    for (const v of values) {
      const uid = eventOf(v);
      const event = byUid.get(uid) ?? {
        event: uid,
        program: program.uid,
        programStage: program.programStage,
        orgUnit: v.orgUnit,
        occurredAt: parseDhis2Period(v.period)!.start.toISOString().slice(0, 10),
        status: 'COMPLETED' as const,
        dataValues: [],
      };
      event.dataValues.push({ dataElement: v.dataElement, value: v.value });
      byUid.set(uid, event);
    }
    return [...byUid.values()];
  };
  return {
    kind: 'tracker',
    send: (chunk, dryRun) => importEvents(target, events(chunk.values), { dryRun, async }),
    current: async (values) => {
      const found = await readEvents(target, [...new Set(values.map(eventOf))]);
      const current = new Map<string, string>();
      for (const v of values) {
        const value = found.get(eventOf(v))?.get(v.dataElement);
        if (value !== undefined) current.set(valueKey(v), value);
      }
      return current;
    },
    conflicted: (chunk, conflict) => chunk.values.flatMap((v, i) => (eventOf(v) === conflict.object ? [i] : [])),
  };
}

/** Records an import's summary in its chunk: imported, with the counts and the conflicts by the chunk's values. */
export function summarized(chunk: CheckpointChunk, summary: ImportSummary, protocol: Protocol): void {
  chunk.outcome = 'imported';
  chunk.importCount = summary.importCount;
  chunk.conflicts = summary.conflicts.map((c) => ({
    object: c.object ?? '',
    value: c.value ?? '',
    ...(c.errorCode && { errorCode: c.errorCode }),
    indexes: protocol.conflicted(chunk, c),
  }));
  delete chunk.task;
  delete chunk.message;
}
