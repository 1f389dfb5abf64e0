import type { FastifyReply } from 'fastify';
import type { Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { ingestionJob } from '../../records/ingestion-job.ts';
import type { Runs } from './runs.ts';

/** How the routes that start runs answer: at once with the job record, or once the run has finished. */

export const preferAsync = (prefer: string | undefined) =>
  (prefer ?? '').split(/[,;]/).some((p) => p.trim().toLowerCase() === 'respond-async');

/** The answer to `Prefer: respond-async`: 202, the job record and where it stays. */
export function accepted(reply: FastifyReply, run: Ingestion) {
  reply.code(202).header('location', `/ingestions/jobs/${run.metadata.name}`);
  reply.header('preference-applied', 'respond-async');
  return ingestionJob(run);
}

/**
 * Waits for a run a synchronous request started. The run goes on if the client leaves; only the wait stops, and
 * then (or when the run is deleted) the result is undefined.
 */
export async function untilFinished(runs: Runs, run: Ingestion, reply: FastifyReply): Promise<Ingestion | undefined> {
  const stop = new AbortController();
  reply.raw.once('close', () => stop.abort());
  try {
    return await runs.finished(run, stop.signal);
  } finally {
    stop.abort();
  }
}
