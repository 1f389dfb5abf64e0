import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { ingestionJob, ingestionJobSchema, jobRecordHref } from '../../records/ingestion-job.ts';
import { commonErrorResponses, errorDetailSchema } from '../../schemas.ts';
import type { Runs } from './runs.ts';

/** How the routes that start runs answer: at once with the job record, or once the run has finished. */

/** The request headers of a route that starts a run: `Prefer: respond-async` asks for the job record at once. */
export const preferHeaders = z.object({ prefer: z.string().optional() });

/**
 * What a route that starts a run may answer besides its own 200: 202 with the job record, 400 and 404 for what
 * the run would need, 409 while another run writes the same target.
 */
export const runStartResponses = {
  202: ingestionJobSchema,
  400: errorDetailSchema,
  404: errorDetailSchema,
  409: errorDetailSchema,
  ...commonErrorResponses,
};

export const preferAsync = (prefer: string | undefined) =>
  (prefer ?? '').split(/[,;]/).some((p) => p.trim().toLowerCase() === 'respond-async');

/** The status and headers of every answer to `Prefer: respond-async`: 202 and where the job record stays. */
export function acceptedHeaders(reply: FastifyReply, run: Ingestion): void {
  reply.code(202).header('location', jobRecordHref(run.metadata.name));
  reply.header('preference-applied', 'respond-async');
}

/** The answer to `Prefer: respond-async` of the routes whose 202 body is the job record. */
export function accepted(reply: FastifyReply, run: Ingestion) {
  acceptedHeaders(reply, run);
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
