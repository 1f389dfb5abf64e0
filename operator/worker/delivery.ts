/**
 * The `delivery` task: one attempt of a Delivery. The first attempt reads the job's payload, maps it through the
 * export (core/exports/prepare.ts), cuts it into chunks and checkpoints them; every attempt then sends the chunks
 * not yet sent, one request each, checkpointing before and after. Only an answer that says nothing was applied
 * (502, 503, 429, no connection) lets a chunk be sent again; a chunk sent without a definite answer is `unknown`
 * and is read back from the target at the end, never re-sent. Values the delivery changed go to the changelog.
 */
import { readFile, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { appendChangelog, readChangelog, type ChangelogEntry } from '../../core/exports/changelog.ts';
import {
  readCheckpoint,
  writeCheckpoint,
  type Checkpoint,
  type CheckpointChunk,
} from '../../core/exports/checkpoint.ts';
import {
  authorizationOf,
  importEvents,
  importTaskSummary,
  importValues,
  readEvents,
  readValues,
  type Dhis2Target,
  type ImportAnswer,
  type ImportSummary,
  type TrackerEvent,
} from '../../core/exports/dhis2-client.ts';
import { parseDhis2Period } from '../../core/exports/periods.ts';
import { createHash } from 'node:crypto';
import { DEFAULT_COMBO, payloadSchema, valueKey, type DataValue } from '../../core/exports/payload.ts';
import { prepareValues } from '../../core/exports/prepare.ts';
import { RunError } from '../../core/runs/errors.ts';
import { writeFileAtomic } from '../../core/files/durable.ts';
import { deliveryManifest } from '../../core/provenance/delivery-manifest.ts';
import { sha256Hex } from '../../core/provenance/digest.ts';
import { changelogPath, deliveryCheckpointPath, deliveryProvenancePath, storeFile } from '../../core/stores/layout.ts';
import { deliveryInputSchema, type DeliveryInput, type DeliveryResult } from './delivery-input.ts';
import { CREDENTIALS_ENV, TOKEN_ENV } from './ingestion-input.ts';
import type { Task, TaskContext } from './protocol.ts';

/** Requests a chunk may take when the target answers that it applied nothing; backoff doubles from the first. */
const MAX_TRIES = 5;
const FIRST_BACKOFF_MS = 500;
/** Task polls: the first after this, then up to `MAX_POLL_MS` apart; errors in a row before the attempt gives up. */
const FIRST_POLL_MS = 200;
const MAX_POLL_MS = 5_000;
const MAX_POLL_ERRORS = 10;

/** Codes of refusals no other attempt can cure: the delivery fails at once. */
const DEFINITE = new Set(['InvalidPayload', 'MappingIncomplete', 'TemporalAggregationRequired', 'IncompletePeriods']);

const sameValue = (a: string | undefined, b: string) =>
  a !== undefined && (a === b || (a !== '' && b !== '' && Number(a) === Number(b)));

function scopeOf(values: DataValue[]) {
  const distinct = (pick: (v: DataValue) => string) => [...new Set(values.map(pick))];
  return {
    dataElements: distinct((v) => v.dataElement),
    periods: distinct((v) => v.period),
    orgUnits: distinct((v) => v.orgUnit),
  };
}

/**
 * How a delivery talks to its kind of target. Values are keyed alike for both (`valueKey`): a tracker target's
 * event is the org unit and period of its values, so the rest of the delivery need not know which it talks to.
 */
interface Protocol {
  kind: 'aggregate' | 'tracker';
  send(chunk: CheckpointChunk, dryRun: boolean): Promise<ImportAnswer>;
  /** The target's values for the keys of `values`, by `valueKey`. */
  current(values: DataValue[]): Promise<Map<string, string>>;
  /** The chunk's values that a conflict names (its indexes for data values, its uid for events). */
  conflicted(chunk: CheckpointChunk, conflict: ImportSummary['conflicts'][number]): number[];
}

function aggregateProtocol(target: Dhis2Target, async: boolean): Protocol {
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

function trackerProtocol(target: Dhis2Target, async: boolean, input: DeliveryInput): Protocol {
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
async function prepare(input: DeliveryInput, target: Dhis2Target): Promise<Checkpoint> {
  const startedAt = new Date().toISOString();
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
  const { values, droppedPeriods } = prepareValues(parsed.data.dataValues, input.export);
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
    payload: { sha256: sha256Hex(text), size: Buffer.byteLength(text) },
    values: values.length + deletes.length,
    droppedPeriods,
    chunks: [...upserts, ...chunked(deletes, size, 'DELETE', upserts.length)],
    changelogEntries: 0,
  };
}

/** The changelog entries of a chunk's values, from what the target held before and whether each was applied. */
function entriesOf(
  input: DeliveryInput,
  chunk: CheckpointChunk,
  applied: (value: DataValue, index: number) => boolean,
  now: string,
): ChangelogEntry[] {
  const entries: ChangelogEntry[] = [];
  chunk.values.forEach((v, i) => {
    if (!applied(v, i)) return;
    const previous = chunk.previous?.[valueKey(v)];
    const type =
      chunk.strategy === 'DELETE'
        ? previous === undefined
          ? undefined
          : 'DELETE'
        : previous === undefined
          ? 'CREATE'
          : sameValue(previous, v.value)
            ? undefined
            : 'UPDATE';
    if (!type) return;
    entries.push({
      type,
      dataElement: v.dataElement,
      period: v.period,
      orgUnit: v.orgUnit,
      categoryOptionCombo: v.categoryOptionCombo ?? DEFAULT_COMBO,
      attributeOptionCombo: v.attributeOptionCombo ?? DEFAULT_COMBO,
      previousValue: previous ?? null,
      value: type === 'DELETE' ? null : v.value,
      ...(input.program && { program: input.program.uid }),
      delivery: input.delivery,
      chunk: chunk.index,
      user: input.user,
      created: now,
    });
  });
  return entries;
}

const summarized = (chunk: CheckpointChunk, summary: ImportSummary, protocol: Protocol) => {
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
};

async function run(input: DeliveryInput, context: TaskContext): Promise<DeliveryResult> {
  const root = input.storageRoot;
  const file = storeFile(root, deliveryCheckpointPath(input.namespace, input.exportId, input.delivery));
  const changelogFile = storeFile(root, changelogPath(input.namespace, input.exportId));
  const target: Dhis2Target = {
    url: input.export.target.url,
    authorization: authorizationOf({
      username: process.env[CREDENTIALS_ENV.username],
      password: process.env[CREDENTIALS_ENV.password],
      token: process.env[TOKEN_ENV],
    }),
    timeoutMs: input.export.target.timeoutSeconds * 1000,
    signal: context.signal,
  };
  const async = input.export.target.async;
  const protocol =
    input.export.target.type === 'dhis2-tracker'
      ? trackerProtocol(target, async, input)
      : aggregateProtocol(target, async);
  const checkpoint = (await readCheckpoint(file)) ?? (await prepare(input, target));
  const save = () => writeCheckpoint(file, checkpoint);
  // What the previous attempt left: a chunk it was sending has an unknown outcome; one that failed may go again.
  for (const chunk of checkpoint.chunks) {
    if (chunk.outcome === 'sending') {
      chunk.outcome = 'unknown';
      chunk.message = 'the attempt that sent it ended before an answer';
    } else if (chunk.outcome === 'failed') chunk.outcome = 'pending';
  }
  await save();
  const recording = input.changelog && !input.dryRun;
  // A worker killed between recording a chunk's entries and checkpointing them must not record them twice: only
  // then, when a chunk has an outcome but is not marked logged, is the changelog read.
  const unsure = checkpoint.chunks.some((c) => !c.logged && (c.outcome === 'imported' || c.readBack));
  const alreadyLogged =
    recording && unsure
      ? new Set((await readChangelog(changelogFile)).filter((e) => e.delivery === input.delivery).map((e) => e.chunk))
      : new Set<number>();
  const record = async (chunk: CheckpointChunk, applied: (value: DataValue, index: number) => boolean) => {
    if (!recording || chunk.logged) return;
    if (!alreadyLogged.has(chunk.index)) {
      const entries = entriesOf(input, chunk, applied, new Date().toISOString());
      await appendChangelog(changelogFile, entries);
      checkpoint.changelogEntries += entries.length;
    }
    chunk.logged = true;
    await save();
  };
  const refused: string[] = [];

  async function send(chunk: CheckpointChunk): Promise<void> {
    for (;;) {
      context.throwIfCancelled();
      if (recording) chunk.previous = Object.fromEntries(await protocol.current(chunk.values));
      chunk.outcome = 'sending';
      chunk.tries++;
      await save();
      const answer = await protocol.send(chunk, input.dryRun);
      context.throwIfCancelled();
      if (answer.kind === 'summary') summarized(chunk, answer.summary, protocol);
      else if (answer.kind === 'task') {
        chunk.outcome = 'polling';
        chunk.task = answer.id;
      } else if (answer.kind === 'unknown') {
        chunk.outcome = 'unknown';
        chunk.message = answer.message;
      } else if (answer.kind === 'refused') {
        chunk.outcome = 'failed';
        chunk.message = answer.message;
        await save();
        if (answer.status === 401 || answer.status === 403)
          throw new RunError('AuthenticationFailed', `The target refused the credentials: ${answer.message}`);
        refused.push(`chunk ${chunk.index}: ${answer.message}`);
        return;
      } else if (chunk.tries < MAX_TRIES) {
        chunk.outcome = 'pending';
        chunk.message = answer.message;
        await save();
        await sleep(FIRST_BACKOFF_MS * 2 ** (chunk.tries - 1), undefined, { signal: context.signal }).catch(() => {});
        continue;
      } else {
        chunk.outcome = 'failed';
        chunk.message = `${answer.message} (after ${chunk.tries} requests)`;
      }
      await save();
      return;
    }
  }

  async function poll(chunk: CheckpointChunk): Promise<void> {
    let wait = FIRST_POLL_MS;
    let errors = 0;
    for (;;) {
      await sleep(wait, undefined, { signal: context.signal }).catch(() => {});
      context.throwIfCancelled();
      try {
        const summary = await importTaskSummary(target, chunk.task!, protocol.kind);
        errors = 0;
        if (summary) {
          summarized(chunk, summary, protocol);
          await save();
          return;
        }
      } catch (err) {
        if (++errors >= MAX_POLL_ERRORS)
          throw new RunError('UpstreamUnavailable', `Polling import task ${chunk.task}: ${(err as Error).message}`);
      }
      wait = Math.min(wait * 2, MAX_POLL_MS);
    }
  }

  const total = checkpoint.chunks.length;
  const settled = () => checkpoint.chunks.filter((c) => c.outcome !== 'pending' && c.outcome !== 'polling').length;
  context.progress(settled(), total, `delivering ${checkpoint.values} values in ${total} chunks`);
  for (const chunk of checkpoint.chunks) {
    context.throwIfCancelled();
    if (chunk.outcome === 'pending') await send(chunk);
    if (chunk.outcome === 'polling') await poll(chunk);
    if (chunk.outcome === 'imported') {
      const conflicted = new Set(chunk.conflicts?.flatMap((c) => c.indexes) ?? []);
      await record(chunk, (_, i) => !conflicted.has(i));
    }
    context.progress(settled(), total, `chunk ${chunk.index + 1} of ${total}: ${chunk.outcome}`);
  }
  // Unknown chunks are read back, not sent again: what the target holds says which of their values arrived.
  for (const chunk of checkpoint.chunks.filter((c) => c.outcome === 'unknown' && !c.readBack && !input.dryRun)) {
    const current = await protocol.current(chunk.values);
    const applied = (v: DataValue) =>
      chunk.strategy === 'DELETE' ? !current.has(valueKey(v)) : sameValue(current.get(valueKey(v)), v.value);
    const count = chunk.values.filter(applied).length;
    chunk.readBack = { applied: count, missing: chunk.values.length - count };
    await save();
    await record(chunk, applied);
  }
  const failed = checkpoint.chunks.filter((c) => c.outcome === 'failed');
  if (failed.length > 0 && refused.length < failed.length)
    throw new RunError(
      'DeliveryIncomplete',
      `${failed.length} of ${total} chunks failed (${failed[0]!.message}); a new attempt sends them.`,
    );
  const missing = checkpoint.chunks.reduce((n, c) => n + (c.readBack?.missing ?? 0), 0);
  const problems = [
    ...refused,
    ...(missing > 0
      ? [`${missing} values of chunks with an unknown outcome are not at the target; they are not sent again`]
      : []),
  ];
  await writeManifest(input, checkpoint);
  if (problems.length > 0)
    return { outcome: 'failed', error: { type: 'DeliveryIncomplete', message: problems.join('; ') } };
  return { outcome: 'successful' };
}

/** The delivery's provenance, once every chunk has its outcome (docs/exports.md#provenance). */
async function writeManifest(input: DeliveryInput, checkpoint: Checkpoint): Promise<void> {
  const payload = checkpoint.payload ?? (await payloadDigest(storeFile(input.storageRoot, input.payload)));
  const manifest = deliveryManifest({
    delivery: input.delivery,
    exportId: input.exportId,
    job: input.job,
    dryRun: input.dryRun,
    payload: { path: input.payload, ...payload },
    target: { type: input.export.target.type, url: input.export.target.url },
    checkpoint,
    finishedAt: new Date().toISOString(),
  });
  const path = deliveryProvenancePath(input.namespace, input.exportId, input.delivery);
  await writeFileAtomic(storeFile(input.storageRoot, path), JSON.stringify(manifest, null, 2));
}

/** The payload's digest, for a checkpoint prepared before checkpoints recorded it. */
async function payloadDigest(file: string) {
  const bytes = await readFile(file);
  return { sha256: sha256Hex(bytes), size: bytes.byteLength };
}

export const delivery: Task = async (raw, context) => {
  const parsed = deliveryInputSchema.safeParse(raw);
  if (!parsed.success) throw new RunError('InvalidInput', `invalid delivery input: ${parsed.error.message}`);
  try {
    return await run(parsed.data, context);
  } catch (err) {
    // A payload the export cannot take fails the delivery; another attempt would fail alike.
    if (err instanceof RunError && DEFINITE.has(err.code))
      return { outcome: 'failed', error: { type: err.code, message: err.message } } satisfies DeliveryResult;
    if ((err as { auth?: boolean }).auth) throw new RunError('AuthenticationFailed', (err as Error).message);
    throw err;
  }
};

/**
 * The `remove-delivery-files` task: a deleted delivery's checkpoint and provenance go. A worker does it because the
 * operator's pod mounts the store read-only; the export's changelog stays, as it is append-only.
 */
export const removeDeliveryFiles: Task = async (raw) => {
  const parsed = deliveryInputSchema
    .pick({ delivery: true, namespace: true, exportId: true, storageRoot: true })
    .safeParse(raw);
  if (!parsed.success)
    throw new RunError('InvalidInput', `invalid remove-delivery-files input: ${parsed.error.message}`);
  const { storageRoot, namespace, exportId, delivery } = parsed.data;
  await rm(storeFile(storageRoot, deliveryCheckpointPath(namespace, exportId, delivery)), { force: true });
  await rm(storeFile(storageRoot, deliveryProvenancePath(namespace, exportId, delivery)), { force: true });
  return null;
};
