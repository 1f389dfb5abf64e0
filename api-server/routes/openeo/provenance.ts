import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { KubeObject } from '../../../core/cluster/objects.ts';
import { jobRecord, phaseOf } from '../../../core/processing/jobs/record.ts';
import { withPinnedVersions } from '../../../core/processing/jobs/rerun.ts';
import { readProcessingManifest } from '../../../core/provenance/manifest.ts';
import { provenanceItem } from '../../../core/provenance/stac-item.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../../core/resources/kind.ts';
import {
  processingJobKind,
  processingJobSpecSchema,
  type ProcessingJob,
} from '../../../core/resources/processing-job/schema.ts';
import { HttpError } from '../../errors.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { finishedResults, finishedResultsResponses, itemOf } from './job-results.ts';
import { findJob, jobParams } from './jobs.ts';
import { freeForm, openeoErrorSchema } from './schemas.ts';

const tags = ['openEO batch jobs'];

/**
 * Provenance and reproducible reruns of batch jobs (docs/processing.md#provenance): the provenance Item of a
 * finished job's results, from the manifest its run wrote, and reruns pinned to the dataset versions it read.
 */
export const jobProvenanceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, namespace, storageRoot, config } = app.stratus;
  const base = (request: FastifyRequest) => publicBaseUrl(request, config.server.baseUrl);

  /** The finished job's manifest, or 404 FileNotFound when its run wrote none. */
  async function manifestOf(job: ProcessingJob, path: string) {
    const manifest = await readProcessingManifest(storageRoot, path);
    if (!manifest)
      throw new HttpError('FileNotFound', `The batch job '${job.metadata.name}' has no provenance manifest.`);
    return manifest;
  }

  app.get(
    '/jobs/:job_id/results/provenance',
    {
      schema: {
        summary: 'Provenance of the results of a finished batch job',
        description:
          'The STAC Item of the results with the Processing extension (`processing:software`, `processing:lineage`, ' +
          '`processing:expression`: the canonical process graph, `processing:datetime`) and the File extension ' +
          '(`file:checksum`, a sha2-256 multihash, and `file:size` of every asset), plus `stratus:inputs` (each ' +
          'dataset with its version, snapshot and store digest; each feature collection with its release and ' +
          'digest), `stratus:process_graph_sha256`, `stratus:parameters` and `stratus:run` (start and end). ' +
          'Linked from the results with `rel: provenance`. 424 for a failed job, 400 `JobNotFinished` for others.',
        tags,
        params: jobParams,
        produces: ['application/geo+json'],
        response: {
          200: freeForm('BatchJobProvenance', 'STAC Item of the provenance of the results.'),
          ...finishedResultsResponses,
        },
      },
    },
    async (request, reply) => {
      const job = await findJob(cluster, namespace, request.params.job_id);
      const results = finishedResults(job, reply);
      if (!results) return reply;
      const manifest = await manifestOf(job, results.path);
      const url = base(request);
      const jobUrl = `${url}/jobs/${job.metadata.name}`;
      const item = provenanceItem(itemOf(job, url), manifest, [
        { rel: 'self', href: `${jobUrl}/results/provenance`, type: 'application/geo+json' },
        { rel: 'via', href: `${jobUrl}/results`, type: 'application/geo+json', title: 'The results' },
        ...manifest.inputs.datasets.map((d) => ({
          rel: 'derived_from',
          href: `${url}/collections/${d.id}`,
          type: 'application/json',
          title: `${d.id} at version ${d.version}`,
        })),
        ...(manifest.rerunOf
          ? [{ rel: 'predecessor-version', href: `${url}/jobs/${manifest.rerunOf}/results/provenance` }]
          : []),
      ]);
      return reply.type('application/geo+json').send(item);
    },
  );

  app.post(
    '/jobs/:job_id/rerun',
    {
      config: { access: 'F_JOB_MANAGE' },
      schema: {
        summary: 'Rerun a finished batch job on the same inputs',
        description:
          'Creates and queues a new batch job (201, `Location`, `OpenEO-Identifier`) with the same process, whose ' +
          'datasets are read at the versions the finished job read (from its provenance manifest), not at the ' +
          'versions served now; its provenance links the original (`predecessor-version`). Its results have the ' +
          'same checksums in every deterministic format. 400 `JobNotFinished` for a job that did not finish, 404 ' +
          '`FileNotFound` when the job has no provenance manifest, 409 when a version it read is no longer retained.',
        tags,
        params: jobParams,
        response: {
          201: freeForm('BatchJobRerun', 'The record of the new batch job.'),
          400: openeoErrorSchema,
          404: openeoErrorSchema,
          409: z.object({ detail: z.string() }).describe('A version the job read is no longer retained.'),
        },
      },
    },
    async (request, reply) => {
      const original = await findJob(cluster, namespace, request.params.job_id);
      const results = original.status?.results;
      if (phaseOf(original) !== 'finished' || !results)
        throw new HttpError(
          'JobNotFinished',
          `The batch job '${original.metadata.name}' is ${phaseOf(original)}; only a finished job can be rerun.`,
        );
      const manifest = await manifestOf(original, results.path);
      const datasetVersions = Object.fromEntries(manifest.inputs.datasets.map((d) => [d.id, d.version]));
      const datasets = await Promise.all(
        Object.keys(datasetVersions).map((id) => cluster.get<KubeObject>(datasetKind, id, namespace)),
      );
      const { missing } = withPinnedVersions(
        datasets.filter((d) => d !== undefined),
        datasetVersions,
      );
      const gone = [...(missing ?? []), ...Object.keys(datasetVersions).filter((_, i) => !datasets[i])];
      if (gone.length > 0)
        throw new HttpError(
          'Conflict',
          `The batch job '${original.metadata.name}' cannot be rerun: ${gone.join(', ')} ${gone.length === 1 ? 'is' : 'are'} no longer retained.`,
        );
      const name = `job-${randomBytes(8).toString('hex')}`;
      const { title, description, plan, budget, process } = original.spec;
      const job = await cluster.create<ProcessingJob>(processingJobKind, {
        apiVersion: API_VERSION,
        kind: processingJobKind.kind,
        metadata: { name, namespace },
        spec: processingJobSpecSchema.parse({
          ...(title !== undefined && { title }),
          ...(description !== undefined && { description }),
          ...(plan !== undefined && { plan }),
          ...(budget !== undefined && { budget }),
          process,
          queuedAt: new Date().toISOString(),
          rerun: { of: original.metadata.name, datasetVersions },
        }),
      });
      return reply
        .code(201)
        .header('location', `${base(request)}/jobs/${name}`)
        .header('openeo-identifier', name)
        .send(jobRecord(job, true));
    },
  );
};
