/**
 * The `delivery` task: one attempt of a Delivery. The first attempt reads the job's payload, maps it through the
 * export (core/exports/prepare.ts), cuts it into chunks and checkpoints them; every attempt then sends the chunks
 * not yet sent, one request each, checkpointing before and after. Only an answer that says nothing was applied
 * (502, 503, 429, no connection) lets a chunk be sent again; a chunk sent without a definite answer is `unknown`
 * and is read back from the target at the end, never re-sent. Values the delivery changed go to the changelog.
 */
import { readFile, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { appendChangelog, entriesOf, readChangelog } from '../../core/exports/changelog.ts';
import {
  readCheckpoint,
  writeCheckpoint,
  type Checkpoint,
  type CheckpointChunk,
} from '../../core/exports/checkpoint.ts';
import { prepareCheckpoint } from '../../core/exports/chunks.ts';
import { authorizationOf, importTaskSummary, type Dhis2Target } from '../../core/exports/dhis2-client.ts';
import { aggregateProtocol, summarized, trackerProtocol } from '../../core/exports/dhis2-protocols.ts';
import { sameValue, valueKey, type DataValue } from '../../core/exports/payload.ts';
import { RunError } from '../../core/runs/errors.ts';
import { writeFileAtomic } from '../../core/files/durable.ts';
import { deliveryManifest } from '../../core/exports/delivery-manifest.ts';
import { sha256Hex } from '../../core/provenance/digest.ts';
import { changelogPath, deliveryCheckpointPath, deliveryProvenancePath, storeFile } from '../../core/stores/layout.ts';
import { deliveryInputSchema, type DeliveryInput, type DeliveryResult } from './delivery-input.ts';
import { workerCredentials } from './credentials.ts';
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

async function run(input: DeliveryInput, context: TaskContext): Promise<DeliveryResult> {
  const root = input.storageRoot;
  const file = storeFile(root, deliveryCheckpointPath(input.namespace, input.exportId, input.delivery));
  const changelogFile = storeFile(root, changelogPath(input.namespace, input.exportId));
  const target: Dhis2Target = {
    url: input.export.target.url,
    authorization: authorizationOf(workerCredentials()),
    timeoutMs: input.export.target.timeoutSeconds * 1000,
    signal: context.signal,
  };
  const async = input.export.target.async;
  const protocol =
    input.export.target.type === 'dhis2-tracker'
      ? trackerProtocol(target, async, input)
      : aggregateProtocol(target, async);
  const checkpoint = (await readCheckpoint(file)) ?? (await prepareCheckpoint(input, target));
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
    table: input.table,
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
