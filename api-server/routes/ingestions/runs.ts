import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Cluster } from '../../../core/cluster/port.ts';
import type { DataSource } from '../../../core/resources/data-source/schema.ts';
import { DATASET_LABEL, datasetIdOf, isFinished } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion, type IngestionSpec } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/kind.ts';
import { HttpError } from '../../errors.ts';
import { ingestionJob } from './record.ts';

/** Ingestion and sync runs as the API creates and follows them. */

export const preferAsync = (prefer: string | undefined) =>
  (prefer ?? '').split(/[,;]/).some((p) => p.trim().toLowerCase() === 'respond-async');

/** Resolves with the run once it has finished; the watch starts from the current state, so nothing is missed. */
async function finished(cluster: Cluster, run: Ingestion, signal: AbortSignal): Promise<Ingestion | undefined> {
  const { name, namespace } = run.metadata;
  const labelSelector = `${DATASET_LABEL}=${(run.metadata.labels as Record<string, string> | undefined)?.[DATASET_LABEL] ?? ''}`;
  try {
    for await (const event of cluster.watch<Ingestion>(ingestionKind, { namespace, labelSelector, signal })) {
      if (event.type === 'DELETED' && event.object.metadata.name === name) return undefined;
      if (event.object.metadata.name === name && isFinished(event.object)) return event.object;
    }
  } catch (err) {
    if (signal.aborted) return undefined;
    throw err;
  }
  return undefined;
}

/**
 * Creates a run writing `datasetId`, after checking that no other run writes it (409 names the one that does).
 * The name is the dataset's plus random hex, so it is unique and says what it writes.
 */
export async function createRun(
  cluster: Cluster,
  namespace: string,
  source: DataSource,
  datasetId: string,
  spec: Omit<IngestionSpec, 'source' | 'datasetId' | 'maxAttempts' | 'cancelRequested'> & { maxAttempts?: number },
): Promise<Ingestion> {
  const { items } = await cluster.list<Ingestion>(ingestionKind, { namespace });
  const active = items.find((r) => datasetIdOf(r) === datasetId && !isFinished(r));
  if (active)
    throw new HttpError(
      'Conflict',
      `Ingestion ${active.metadata.name} is already writing dataset ${datasetId}; wait for it or cancel it`,
    );
  return cluster.create<Ingestion>(ingestionKind, {
    apiVersion: API_VERSION,
    kind: ingestionKind.kind,
    metadata: {
      name: `${datasetId.slice(0, 50)}-${randomBytes(4).toString('hex')}`,
      namespace,
      labels: { [DATASET_LABEL]: datasetId, 'climate.stratus.dev/source': source.metadata.name },
    },
    spec: { maxAttempts: 3, ...spec, source: source.metadata.name, datasetId, cancelRequested: false },
  } as Ingestion);
}

/** The 202 answer of an async request: `Location` of the job record, and the record. */
export function acceptedRun(reply: FastifyReply, run: Ingestion) {
  reply.code(202).header('location', `/ingestions/jobs/${run.metadata.name}`);
  reply.header('preference-applied', 'respond-async');
  return ingestionJob(run);
}

/** Waits for the run of a synchronous request; the run goes on if the client leaves, only the wait stops. */
export async function waitForRun(cluster: Cluster, run: Ingestion, reply: FastifyReply): Promise<Ingestion> {
  const stop = new AbortController();
  reply.raw.once('close', () => stop.abort());
  try {
    return (await finished(cluster, run, stop.signal)) ?? run;
  } finally {
    stop.abort();
  }
}
