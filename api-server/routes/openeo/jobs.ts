import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isApiError } from '../../../core/cluster/errors.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { ProcessingError, validateProcessGraph } from '../../../core/processing/index.ts';
import { isLocked, jobRecord } from '../../../core/processing/jobs/record.ts';
import { storedWorkflows } from '../../../core/processing/workflows.ts';
import { API_VERSION } from '../../../core/resources/kind.ts';
import {
  processingJobKind,
  processingJobSpecSchema,
  type ProcessingJob,
} from '../../../core/resources/processing-job/schema.ts';
import { isSafeName } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import { newestFirst, pageQuerySchema, paginate } from '../../pagination.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { compiledSerializer } from '../../serialization.ts';
import { derived } from '../../services/resources/derived.ts';
import { freeForm, openeoErrorSchema } from './schemas.ts';

const tags = ['openEO batch jobs'];
export const jobParams = z.object({ job_id: z.string().describe('Batch job id.') });

const metadataFields = {
  title: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  plan: z.string().nullable().optional(),
  budget: z.number().min(0).nullable().optional(),
  process: z.record(z.string(), z.unknown()).optional(),
};
const jobCreateSchema = z
  .looseObject(metadataFields)
  .meta({ id: 'BatchJobCreate', description: 'openEO job-create body: `process` (required) and metadata.' });
const jobUpdateSchema = z
  .looseObject(metadataFields)
  .meta({ id: 'BatchJobUpdate', description: 'openEO job-update body: the members to change.' });
const jobRecordSchema = freeForm('BatchJob', 'openEO batch job record: id, status, progress, usage, process...');

/** The job `job_id` of the instance's namespace, or 404 JobNotFound. */
export async function findJob(cluster: Cluster, namespace: string, id: string): Promise<ProcessingJob> {
  const job = isSafeName(id) ? await cluster.get<ProcessingJob>(processingJobKind, id, namespace) : undefined;
  // A deleted job is kept only until the operator has removed its files.
  if (!job || job.metadata.deletionTimestamp)
    throw new HttpError('JobNotFound', `The batch job '${id.slice(0, 100)}' does not exist.`);
  return job;
}

/**
 * Runs `change` on the job as stored now, again on a fresh read when a concurrent write (the controller's status,
 * a finalizer) made it stale: each change is compare-and-swap, so a job queued meanwhile is checked again.
 */
async function changeJob(
  cluster: Cluster,
  namespace: string,
  id: string,
  change: (job: ProcessingJob) => Promise<void>,
): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      return await change(await findJob(cluster, namespace, id));
    } catch (err) {
      if (!isApiError(err, 'Conflict') || tries >= 5) throw err;
    }
  }
}

export const batchJobsSchema = freeForm('BatchJobs', '`jobs` (records without their process) and `links`.');

/** The jobs `/jobs` lists: those not being deleted. */
const liveJobs = (jobs: readonly ProcessingJob[]) => jobs.filter((job) => !job.metadata.deletionTimestamp);

const locked = (id: string) =>
  new HttpError(
    'JobLocked',
    `The batch job '${id}' is queued or running; cancel it first (DELETE /jobs/${id}/results).`,
  );

/** The spec members a create or update body sets; `null` clears a member. */
function specMembers(body: z.infer<typeof jobCreateSchema>): Record<string, unknown> {
  const members: Record<string, unknown> = {};
  for (const key of ['title', 'description', 'plan', 'budget', 'process'] as const)
    if (body[key] !== undefined) members[key] = body[key];
  return members;
}

/**
 * openEO's `/jobs`: batch jobs stored as `ProcessingJob` resources and run by the operator's worker
 * (docs/processing.md#batch-jobs). A job's graph is checked when it is stored, as `POST /result` checks one.
 */
export const jobRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, namespace, config } = app.stratus;
  const workflows = storedWorkflows(cluster, namespace);
  const jobs = app.resourceCaches.of<ProcessingJob>(processingJobKind);
  const base = (request: FastifyRequest) => publicBaseUrl(request, config.server.baseUrl);

  async function checkProcess(process: Record<string, unknown> | null | undefined): Promise<void> {
    const graph = process?.process_graph;
    if (graph === undefined || graph === null)
      throw new ProcessingError('ProcessGraphMissing', 'The job has no process.process_graph.');
    await validateProcessGraph(graph, { userProcesses: workflows });
  }

  app.get(
    '/jobs',
    {
      serializerCompiler: compiledSerializer,
      schema: {
        summary: 'List batch jobs',
        description:
          'Newest first, paginated with `limit` and `token` (docs/pagination.md); without `limit`, every job.',
        tags,
        querystring: pageQuerySchema,
        response: {
          200: batchJobsSchema,
          400: openeoErrorSchema,
        },
      },
    },
    async (request) => {
      const live = derived(await jobs.list(newestFirst), liveJobs);
      const page = paginate(request, live, newestFirst, {
        baseUrl: config.server.baseUrl,
        invalid: 'PaginationInvalid',
        representation: 'json',
      });
      return {
        jobs: page.items.map((job) => jobRecord(job, false)),
        links: [{ rel: 'self', href: `${base(request)}/jobs`, type: 'application/json' }, ...page.links],
      };
    },
  );

  app.post(
    '/jobs',
    {
      config: { access: 'F_JOB_MANAGE' },
      schema: {
        summary: 'Create a batch job',
        description:
          'Stores the job as a `ProcessingJob` in status `created` after checking its graph; ' +
          '`POST /jobs/{job_id}/results` runs it. Answers 201 with `Location` and `OpenEO-Identifier`.',
        tags,
        body: jobCreateSchema,
        response: { 201: jobRecordSchema, 400: openeoErrorSchema, 404: openeoErrorSchema },
      },
    },
    async (request, reply) => {
      await checkProcess(request.body.process);
      const name = `job-${randomBytes(8).toString('hex')}`;
      const spec = Object.fromEntries(Object.entries(specMembers(request.body)).filter(([, v]) => v !== null));
      const job = await cluster.create<ProcessingJob>(processingJobKind, {
        apiVersion: API_VERSION,
        kind: processingJobKind.kind,
        metadata: { name, namespace },
        // Through the schema, for the defaults a CRD would give (the embedded store applies none).
        spec: processingJobSpecSchema.parse(spec),
      });
      return reply
        .code(201)
        .header('location', `${base(request)}/jobs/${name}`)
        .header('openeo-identifier', name)
        .send(jobRecord(job, true));
    },
  );

  app.get(
    '/jobs/:job_id',
    {
      schema: {
        summary: 'Full metadata of a batch job',
        tags,
        params: jobParams,
        response: { 200: jobRecordSchema, 404: openeoErrorSchema },
      },
    },
    async (request) => jobRecord(await findJob(cluster, namespace, request.params.job_id), true),
  );

  app.patch(
    '/jobs/:job_id',
    {
      config: { access: 'F_JOB_MANAGE' },
      schema: {
        summary: 'Modify a batch job',
        description: 'Changes title, description, process, plan or budget; 400 `JobLocked` while queued or running.',
        tags,
        params: jobParams,
        body: jobUpdateSchema,
        response: { 204: z.null().describe('Changed.'), 400: openeoErrorSchema, 404: openeoErrorSchema },
      },
    },
    async (request, reply) => {
      if (request.body.process !== undefined) await checkProcess(request.body.process);
      await changeJob(cluster, namespace, request.params.job_id, async (job) => {
        if (isLocked(job)) throw locked(job.metadata.name);
        await cluster.patch(
          processingJobKind,
          job.metadata.name,
          {
            type: 'merge',
            body: { metadata: { resourceVersion: job.metadata.resourceVersion }, spec: specMembers(request.body) },
          },
          namespace,
        );
      });
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/jobs/:job_id',
    {
      config: { access: 'F_JOB_MANAGE' },
      schema: {
        summary: 'Delete a batch job',
        description:
          'Deletes the job and its results (204); 404 from then on. A queued or running job is cancelled: its ' +
          'attempt stops and its results are never published.',
        tags,
        params: jobParams,
        response: { 204: z.null().describe('Deleted.'), 404: openeoErrorSchema },
      },
    },
    async (request, reply) => {
      // Deleting cancels too (the controller stops the attempt before its files go), as openEO clients expect.
      await changeJob(cluster, namespace, request.params.job_id, async (job) => {
        await cluster
          .delete(processingJobKind, job.metadata.name, namespace, { resourceVersion: job.metadata.resourceVersion })
          .catch((err: unknown) => {
            if (!isApiError(err, 'NotFound')) throw err;
          });
      });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/jobs/:job_id/results',
    {
      config: { access: 'F_JOB_MANAGE' },
      schema: {
        summary: 'Start a batch job',
        description:
          'Queues the job (202, no body). A queued or running job is left as it is; a finished, failed or cancelled job ' +
          'runs again and its previous results go.',
        tags,
        params: jobParams,
        response: { 202: z.undefined().describe('Queued.'), 404: openeoErrorSchema },
      },
    },
    async (request, reply) => {
      await changeJob(cluster, namespace, request.params.job_id, async (job) => {
        if (isLocked(job)) return;
        await cluster.patch(
          processingJobKind,
          job.metadata.name,
          {
            type: 'merge',
            body: {
              metadata: { resourceVersion: job.metadata.resourceVersion },
              spec: { queuedAt: new Date().toISOString(), cancelRequested: false },
            },
          },
          namespace,
        );
      });
      // openEO answers a start with no body at all; `send(null)` would write the JSON text `null`.
      return reply.code(202).send();
    },
  );

  app.delete(
    '/jobs/:job_id/results',
    {
      config: { access: 'F_JOB_MANAGE' },
      schema: {
        summary: 'Cancel a batch job',
        description:
          'Cancels a queued or running job (204); its partial results are never served. Other jobs: 204, unchanged.',
        tags,
        params: jobParams,
        response: { 204: z.null().describe('Cancelled.'), 404: openeoErrorSchema },
      },
    },
    async (request, reply) => {
      const job = await findJob(cluster, namespace, request.params.job_id);
      if (isLocked(job) && !job.spec.cancelRequested)
        await cluster.patch(
          processingJobKind,
          job.metadata.name,
          { type: 'merge', body: { spec: { cancelRequested: true } } },
          namespace,
        );
      return reply.code(204).send(null);
    },
  );
};
