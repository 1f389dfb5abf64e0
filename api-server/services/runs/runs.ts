import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { isApiError, isRetriable } from '../../../core/cluster/errors.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { DATASET_LABEL, datasetIdOf, isFinished } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/kind.ts';
import { HttpError } from '../../errors.ts';
import { ingestionJob } from '../../records/ingestion-job.ts';

/** What the routes that start runs (ingestions, syncs, feature refreshes) share. */

export const preferAsync = (prefer: string | undefined) =>
  (prefer ?? '').split(/[,;]/).some((p) => p.trim().toLowerCase() === 'respond-async');

/**
 * Resolves with the run once it has finished; the first watch starts from the current state, so nothing is missed.
 * The server ends every watch after the time the Kubernetes adapter asks for (5 to 10 minutes), and a run may take
 * longer: the wait goes on from the last version it saw, or from the current state when that version left the
 * server's history (410 Gone). A watch that broke (a dead connection given up at its deadline, a 5xx) is resumed
 * too, after a pause that doubles from `retryMs` up to 5 s; a refusal ends the wait with its error.
 */
async function finished(
  cluster: Cluster,
  run: Ingestion,
  signal: AbortSignal,
  retryMs: number,
): Promise<Ingestion | undefined> {
  const { name, namespace } = run.metadata;
  const labelSelector = `${DATASET_LABEL}=${(run.metadata.labels as Record<string, string> | undefined)?.[DATASET_LABEL] ?? ''}`;
  let resourceVersion: string | undefined;
  let pause = retryMs;
  try {
    while (!signal.aborted) {
      try {
        const watch = cluster.watch<Ingestion>(ingestionKind, { namespace, labelSelector, resourceVersion, signal });
        for await (const event of watch) {
          resourceVersion = String(event.object.metadata.resourceVersion);
          pause = retryMs;
          if (event.type === 'DELETED' && event.object.metadata.name === name) return undefined;
          if (event.object.metadata.name === name && isFinished(event.object)) return event.object;
        }
      } catch (err) {
        if (isApiError(err, 'Gone')) resourceVersion = undefined;
        else if (isRetriable(err) && !signal.aborted) {
          await sleep(pause, undefined, { signal });
          pause = Math.min(pause * 2, 5_000);
        } else throw err;
      }
    }
  } catch (err) {
    if (signal.aborted) return undefined;
    throw err;
  }
  return undefined;
}

/**
 * Waits for a run a synchronous request started. The run goes on if the client leaves; only the wait stops, and
 * then (or when the run is deleted) the result is undefined.
 */
export async function untilFinished(cluster: Cluster, run: Ingestion, reply: FastifyReply, retryMs = 250) {
  const stop = new AbortController();
  reply.raw.once('close', () => stop.abort());
  try {
    return await finished(cluster, run, stop.signal, retryMs);
  } finally {
    stop.abort();
  }
}

/**
 * Creates a run named `<target>-<8 hex>`, labelled with its target and source so a watch can select it, once no
 * unfinished run writes the same target (a dataset or feature collection): there is one writer at a time, and a
 * second one is refused with 409 naming the first.
 */
export async function startRun(
  cluster: Cluster,
  namespace: string,
  spec: Ingestion['spec'] & { datasetId: string },
  target: 'dataset' | 'feature collection',
): Promise<Ingestion> {
  const { items } = await cluster.list<Ingestion>(ingestionKind, { namespace });
  const active = items.find((r) => datasetIdOf(r) === spec.datasetId && !isFinished(r));
  if (active)
    throw new HttpError(
      'Conflict',
      `Run ${active.metadata.name} is already writing ${target} ${spec.datasetId}; wait for it or cancel it`,
    );
  return cluster.create<Ingestion>(ingestionKind, {
    apiVersion: API_VERSION,
    kind: ingestionKind.kind,
    metadata: {
      name: `${spec.datasetId.slice(0, 50)}-${randomBytes(4).toString('hex')}`,
      namespace,
      labels: { [DATASET_LABEL]: spec.datasetId, 'climate.stratus.dev/source': spec.source },
    },
    spec,
  } as Ingestion);
}

/** The answer to `Prefer: respond-async`: 202, the job record and where it stays. */
export function accepted(reply: FastifyReply, run: Ingestion) {
  reply.code(202).header('location', `/ingestions/jobs/${run.metadata.name}`);
  reply.header('preference-applied', 'respond-async');
  return ingestionJob(run);
}
