import { access } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LOG_LEVELS, readJobLog } from '../../../core/processing/jobs/log.ts';
import { phaseOf } from '../../../core/processing/jobs/record.ts';
import { PROVENANCE_FILE } from '../../../core/provenance/manifest.ts';
import { PROVENANCE_REL } from '../../../core/provenance/stac-item.ts';
import type { ProcessingJob } from '../../../core/resources/processing-job/schema.ts';
import { isSafeKey, jobLogPath, resolveKey, storeFile } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { listDirectory } from '../../services/files/directory.ts';
import { sendFile } from '../../services/files/file-response.ts';
import { findJob, jobParams } from './jobs.ts';
import { freeForm, openeoErrorSchema } from './schemas.ts';

const tags = ['openEO batch jobs'];

/** A failed job's error as the openEO log entry that `GET /jobs/{id}/results` answers with 424. */
function errorEntry(job: ProcessingJob) {
  const error = job.status?.error ?? { type: 'Internal', message: 'The job failed.' };
  return {
    id: 'error',
    level: 'error',
    code: error.type,
    message: error.message,
    time: job.status?.finishedAt,
    links: [],
  };
}

/** What a route of a finished job's results answers besides its own 200: the refusals of `finishedResults`. */
export const finishedResultsResponses = {
  400: openeoErrorSchema,
  404: openeoErrorSchema,
  424: freeForm('BatchJobError', 'The error of the failed job, as an openEO log entry.'),
};

/** The finished job's results, or the refusal openEO asks for. */
export function finishedResults(job: ProcessingJob, reply: FastifyReply) {
  const phase = phaseOf(job);
  if (phase === 'error') return void reply.code(424).send(errorEntry(job));
  const results = job.status?.results;
  if (phase !== 'finished' || !results)
    throw new HttpError('JobNotFinished', `The batch job '${job.metadata.name}' is ${phase}, not finished.`);
  return results;
}

/** The STAC Item of a finished job's results; `provenance` adds the link to its provenance Item. */
export function itemOf(job: ProcessingJob, url: string, provenance = false) {
  const { results, finishedAt } = job.status!;
  const { bbox, start, end } = results!.extent ?? {};
  const [west, south, east, north] = bbox ?? [];
  const jobUrl = `${url}/jobs/${job.metadata.name}`;
  return {
    stac_version: '1.0.0',
    stac_extensions: [],
    type: 'Feature',
    id: job.metadata.name,
    bbox: bbox ?? null,
    geometry: bbox
      ? {
          type: 'Polygon',
          coordinates: [
            [
              [west, south],
              [east, south],
              [east, north],
              [west, north],
              [west, south],
            ],
          ],
        }
      : null,
    properties: {
      ...(job.spec.title && { title: job.spec.title }),
      ...(job.spec.description && { description: job.spec.description }),
      ...(start && end ? { datetime: null, start_datetime: start, end_datetime: end } : { datetime: finishedAt }),
      created: finishedAt,
    },
    'openeo:status': 'finished',
    assets: Object.fromEntries(
      results!.files.map((file) => [
        file.name,
        {
          href: `${jobUrl}/results/${file.name}`,
          type: file.mediaType,
          title: file.name,
          roles: ['data'],
          ...(file.size !== undefined && { 'file:size': file.size }),
        },
      ]),
    ),
    links: [
      { rel: 'self', href: `${jobUrl}/results`, type: 'application/geo+json' },
      { rel: 'job', href: jobUrl, type: 'application/json' },
      ...(provenance
        ? [{ rel: PROVENANCE_REL, href: `${jobUrl}/results/provenance`, type: 'application/geo+json' }]
        : []),
    ],
  };
}

/**
 * The results of openEO batch jobs: the STAC Item of a finished job, each of its files with plain GETs (a Zarr
 * result's root answers its consolidated metadata, its keys below it), and the job's log.
 */
export const jobResultRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, namespace, storageRoot, config } = app.stratus;
  const base = (request: FastifyRequest) => publicBaseUrl(request, config.server.baseUrl);

  app.get(
    '/jobs/:job_id/results',
    {
      schema: {
        summary: 'Results of a finished batch job',
        description:
          'A STAC Item whose assets are the result files, linked (`rel: provenance`) to its provenance Item. 424 ' +
          'with the error (an openEO log entry) for a failed job, 400 `JobNotFinished` for others.',
        tags,
        params: jobParams,
        produces: ['application/geo+json', 'application/json'],
        response: { 200: freeForm('BatchJobResults', 'STAC Item of the results.'), ...finishedResultsResponses },
      },
    },
    async (request, reply) => {
      const job = await findJob(cluster, namespace, request.params.job_id);
      const results = finishedResults(job, reply);
      if (!results) return reply;
      const provenance = await access(storeFile(storageRoot, results.path, PROVENANCE_FILE)).then(
        () => true,
        () => false,
      );
      return reply.type('application/geo+json').send(itemOf(job, base(request), provenance));
    },
  );

  /** Sends the result file `name` of the job (a key below it for a directory), or throws 404. */
  async function sendResult(request: FastifyRequest, reply: FastifyReply, id: string, name: string, key?: string) {
    const job = await findJob(cluster, namespace, id);
    const results = finishedResults(job, reply);
    if (!results) return reply;
    const file = results.files.find((f) => f.name === name);
    const missing = () =>
      new HttpError('FileNotFound', `The batch job '${id}' has no result ${name}${key ? `/${key}` : ''}.`);
    if (!file) throw missing();
    const dir = storeFile(storageRoot, results.path);
    const description = { contentType: file.mediaType, etagPrefix: `${job.metadata.name}-${job.status?.attempt}` };
    if (!file.directory) {
      if (key !== undefined || !(await sendFile(request, reply, storeFile(dir, name), description))) throw missing();
      return reply;
    }
    // A directory: its root answers the consolidated metadata, keys answer their file, directories a listing.
    const inner = key === undefined || key === '' ? '.zmetadata' : key.replace(/\/$/, '');
    // A key that could leave the result names no file of it: openEO's answer for that is 404 FileNotFound.
    if (!isSafeKey(inner)) throw missing();
    const path = resolveKey(storeFile(dir, name), inner);
    const type = /(^|\/)\.z(metadata|group|array|attrs)$|zarr\.json$/.test(inner)
      ? 'application/json'
      : 'application/octet-stream';
    if (path && (await sendFile(request, reply, path, { ...description, contentType: type }))) return reply;
    const entries = path ? await listDirectory(path) : undefined;
    if (!entries) throw missing();
    return reply.send({ path: inner, entries });
  }

  const fileParams = jobParams.extend({ filename: z.string().describe('Result file name.') });
  const fileSchema = {
    tags,
    produces: ['application/octet-stream'],
    response: {
      200: z.unknown().describe('The file.'),
      400: openeoErrorSchema,
      404: openeoErrorSchema,
      424: freeForm('BatchJobFileError', 'The error of the failed job.'),
    },
  };

  app.get(
    '/jobs/:job_id/results/:filename',
    {
      schema: {
        ...fileSchema,
        summary: 'A result file of a finished batch job',
        description:
          'One result file (GeoTIFF, netCDF, PNG, CSV, GeoJSON, GeoParquet, JSON) with ETag and byte ranges; a Zarr ' +
          "result's root (`result.zarr`) answers its consolidated metadata.",
        params: fileParams,
      },
    },
    async (request, reply) => sendResult(request, reply, request.params.job_id, request.params.filename),
  );

  app.get(
    '/jobs/:job_id/results/:filename/*',
    {
      schema: {
        ...fileSchema,
        summary: 'A file inside a Zarr result of a finished batch job',
        params: fileParams.extend({ '*': z.string().describe('Key inside the store.') }),
      },
    },
    async (request, reply) =>
      sendResult(request, reply, request.params.job_id, request.params.filename, request.params['*']),
  );

  app.get(
    '/jobs/:job_id/logs',
    {
      schema: {
        summary: 'Logs of a batch job',
        description:
          "The current run's log entries after `offset` (the id of the last entry seen), at `level` or more " +
          'severe, at most `limit`; `links` has the next page.',
        tags,
        params: jobParams,
        querystring: z.object({
          offset: z.string().optional(),
          level: z.enum(LOG_LEVELS).default('debug'),
          limit: z.coerce.number().int().min(1).max(10_000).optional(),
        }),
        response: { 200: freeForm('BatchJobLogs', '`logs`, `level` and `links`.'), 404: openeoErrorSchema },
      },
    },
    async (request) => {
      const job = await findJob(cluster, namespace, request.params.job_id);
      const { offset, level, limit } = request.query;
      const attempt = job.status?.jobName;
      const { entries, more } = attempt
        ? await readJobLog(storeFile(storageRoot, jobLogPath(namespace, job.metadata.name, attempt)), {
            offset,
            level,
            limit,
          })
        : { entries: [], more: false };
      // An attempt that could not report (its worker crashed) has its error only in the job's status.
      const failedUnlogged =
        phaseOf(job) === 'error' && !more && !entries.some((e) => e.level === 'error') && offset !== 'error';
      const logs = failedUnlogged ? [...entries, errorEntry(job)] : entries;
      const last = logs.at(-1)?.id;
      const url = `${base(request)}/jobs/${job.metadata.name}/logs`;
      return {
        level,
        logs,
        links:
          more && last
            ? [{ rel: 'next', href: `${url}?offset=${last}&level=${level}${limit ? `&limit=${limit}` : ''}` }]
            : [],
      };
    },
  );
};
