import { createHash, randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isApiError } from '../../../core/cluster/errors.ts';
import { readChangelog } from '../../../core/exports/changelog.ts';
import { PAYLOAD_FILE } from '../../../core/exports/payload.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import {
  deliveryKind,
  deliverySpecSchema,
  exportLabels,
  type Delivery,
} from '../../../core/resources/delivery/schema.ts';
import { exportKind, type Export } from '../../../core/resources/export/schema.ts';
import { processingJobKind, type ProcessingJob } from '../../../core/resources/processing-job/schema.ts';
import { readDeliveryManifest } from '../../../core/provenance/manifest.ts';
import { deliveryItem, PROVENANCE_REL } from '../../../core/provenance/stac-item.ts';
import { changelogPath, deliveryProvenancePath, storeFile } from '../../../core/stores/layout.ts';
import { HttpError } from '../../errors.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { runRecordFields } from '../../records/ingestion-job.ts';
import { commonErrorResponses, errorDetailSchema, resourceIdSchema } from '../../schemas.ts';
import {
  changelogPageSchema,
  changelogQuerySchema,
  deliveryAcceptedSchema,
  deliveryJobSchema,
  deliveryProvenanceSchema,
  deliveryRequestSchema,
  idempotencyHeaders,
} from './schemas.ts';
import { markNativeApiRoutes } from '../../plugins/app/errors.ts';
import { resolveTableSource } from '../../services/exports/table-source.ts';

const tags = ['Exports'];
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The Delivery a request names: with an Idempotency-Key, one derived from the export and the key, so that
 * concurrent repeats race on one create (the loser reads the winner's); without, a fresh one. The name leaves room
 * for the attempt suffix within a Job name's 63 characters.
 */
function deliveryName(exportId: string, key: string | undefined): string {
  const suffix = key === undefined ? randomBytes(8).toString('hex') : sha256(`${exportId}\n${key}`).slice(0, 16);
  return `${exportId.slice(0, 40).replace(/[.-]+$/, '')}-${suffix}`;
}

function deliveryRecord(delivery: Delivery) {
  const { metadata, spec } = delivery;
  const status = delivery.status ?? {};
  const url = `/exports/${spec.exportId}/jobs/${metadata.name}`;
  const ended = status.phase === 'successful' || status.phase === 'failed';
  return {
    ...runRecordFields(delivery, status),
    processID: `export:${spec.exportId}`,
    maxAttempts: spec.maxAttempts,
    result: null,
    cancelRequested: false,
    links: [
      { href: url, rel: 'self', title: 'Delivery record' },
      { href: `/exports/${spec.exportId}/changelog`, rel: 'changelog', title: 'Changelog of the export' },
      ...(ended ? [{ href: `${url}/provenance`, rel: PROVENANCE_REL, title: 'Provenance of the delivery' }] : []),
    ],
    export_id: spec.exportId,
    job_id: spec.jobId ?? null,
    table: spec.table
      ? {
          name: spec.table.name,
          version: spec.table.version.id,
          statistic: spec.table.statistic,
          period_type: spec.table.periodType,
          periods: spec.table.periods,
          org_units: spec.table.orgUnits ?? null,
        }
      : null,
    dry_run: spec.dryRun,
    chunks: status.chunks ?? [],
    report: ended ? (status.report ?? null) : null,
  };
}

/** What a delivery delivers, for messages: its job or its table. */
const sourceOf = (spec: Delivery['spec']) => (spec.table ? `table ${spec.table.name}` : `job ${spec.jobId}`);

/**
 * Exports (spec 1): deliveries of a finished job's saved payload or of an analytics table's values, idempotent by
 * key, and the changelog.
 */
export const exportRoutes: FastifyPluginAsyncZod = async (app) => {
  markNativeApiRoutes(app);
  const { cluster, namespace, storageRoot, config } = app.stratus;

  const getExport = async (id: string) => {
    const found = await cluster.get<Export>(exportKind, id, namespace);
    if (!found) throw new HttpError('NotFound', `Export ${id} not found`);
    return found;
  };

  /** A job source: it finished and saved the payload. */
  const checkJobSource = async (jobId: string) => {
    const source = await cluster.get<ProcessingJob>(processingJobKind, jobId, namespace);
    if (!source) throw new HttpError('NotFound', `Job ${jobId} not found`);
    if (source.status?.phase !== 'finished')
      throw new HttpError('Conflict', `Job ${jobId} has not finished (status ${source.status?.phase ?? 'created'}).`);
    if (!source.status.results?.files.some((f) => f.name === PAYLOAD_FILE))
      throw new HttpError(
        'Conflict',
        `Job ${jobId} saved no dhis2-json result (${PAYLOAD_FILE}): save_result with format dhis2-json makes the payload exports deliver.`,
      );
  };

  app.post(
    '/exports/:export_id',
    {
      config: { access: 'F_EXPORT_DELIVER' },
      schema: {
        summary: "Deliver the saved payload of a finished job, or an analytics table's values",
        description:
          "Queues a delivery of the source job's dhis2-json result (`job_id`), or of an AnalyticsTable's values " +
          '(`table`: one statistic of one period type, over periods and relative periods resolved now, every org ' +
          "unit or those named, from the table's version served now), to the export's target and answers 202 " +
          'DeliveryAccepted. Exactly one of `job_id` and `table` (422 otherwise). With `Idempotency-Key`, a repeat ' +
          'with the same content answers the same delivery (`reused: true`) and one with other content 409; ' +
          'without, each request is a new delivery. 404 for an unknown export, job or table, 409 when the job has ' +
          'not finished or saved no dhis2-json result or the table is not built yet, 400 for a statistic, period ' +
          'type, period or org unit the table does not have.',
        tags,
        params: z.object({ export_id: resourceIdSchema }),
        headers: idempotencyHeaders,
        body: deliveryRequestSchema,
        response: {
          202: deliveryAcceptedSchema,
          400: errorDetailSchema,
          404: errorDetailSchema,
          409: errorDetailSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const exportId = request.params.export_id;
      const key = request.headers['idempotency-key'];
      const { job_id: jobId, table, dry_run: dryRun } = request.body;
      await getExport(exportId);
      // A job source hashes as before the table source existed: JSON leaves the absent table out.
      const contentHash = sha256(JSON.stringify({ export_id: exportId, job_id: jobId, table, dry_run: dryRun }));
      const name = deliveryName(exportId, key);
      const answer = (delivery: Delivery, reused: boolean) => {
        const url = `/exports/${exportId}/jobs/${delivery.metadata.name}`;
        return reply.code(202).header('location', url).send({
          delivery_job_id: delivery.metadata.name,
          export_id: exportId,
          status_url: url,
          report_url: url,
          dry_run: delivery.spec.dryRun,
          reused,
        });
      };
      /** The delivery made earlier with this key; 409 when it was made for another request. */
      const existing = async () => {
        const found = await cluster.get<Delivery>(deliveryKind, name, namespace);
        if (!found) return undefined;
        if (found.spec.contentHash !== contentHash)
          throw new HttpError(
            'Conflict',
            `Idempotency-Key ${key} was used for another request to export ${exportId} (${sourceOf(found.spec)}, dry_run ${found.spec.dryRun}).`,
          );
        return found;
      };
      if (key !== undefined) {
        const repeat = await existing();
        if (repeat) return answer(repeat, true);
      }
      const tableSource = table && (await resolveTableSource(cluster, { namespace, storageRoot }, table, new Date()));
      if (jobId !== undefined) await checkJobSource(jobId);
      const caller = request.caller;
      try {
        const created = await cluster.create<Delivery>(deliveryKind, {
          apiVersion: API_VERSION,
          kind: deliveryKind.kind,
          metadata: { name, namespace, labels: exportLabels(exportId) },
          spec: deliverySpecSchema.parse({
            exportId,
            ...(jobId !== undefined && { jobId }),
            ...(tableSource && { table: tableSource }),
            dryRun,
            contentHash,
            ...(key !== undefined && { idempotencyKey: key }),
            ...(caller.authenticated && { requestedBy: caller.username }),
            requestedAt: new Date().toISOString(),
          }),
        });
        return answer(created, false);
      } catch (err) {
        // A concurrent request with the same key created it first.
        if (key === undefined || !isApiError(err, 'AlreadyExists')) throw err;
        const repeat = await existing();
        if (repeat) return answer(repeat, true);
        throw err;
      }
    },
  );

  app.get(
    '/exports/:export_id/jobs/:delivery_job_id',
    {
      schema: {
        summary: 'Status and report of a delivery',
        description:
          "The delivery's job record (`processID` `export:<export_id>`): status, progress, each chunk's outcome " +
          "and, once it ended, the report (the target's import counts and conflicts, values of unknown outcome).",
        tags,
        params: z.object({ export_id: resourceIdSchema, delivery_job_id: resourceIdSchema }),
        response: { 200: deliveryJobSchema, 404: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      const { export_id: exportId, delivery_job_id: id } = request.params;
      const delivery = await cluster.get<Delivery>(deliveryKind, id, namespace);
      if (!delivery || delivery.spec.exportId !== exportId)
        throw new HttpError('NotFound', `Delivery ${id} of export ${exportId} not found`);
      return deliveryRecord(delivery);
    },
  );

  app.get(
    '/exports/:export_id/jobs/:delivery_job_id/provenance',
    {
      schema: {
        summary: 'Provenance of a delivery',
        description:
          'A STAC Item (Processing and File extensions) of the ended delivery: its asset is the payload it read, ' +
          'with `file:checksum` (sha2-256 multihash) and `file:size`; `stratus:delivery` lists every chunk (its ' +
          'SHA-256 over the canonical JSON of the data values it sends, its outcome and import count) and the ' +
          "target's import summary. For a table source, `stratus:delivery.table` names the table, the version " +
          'delivered, the statistic, period type, periods and org units, and the asset is the table Parquet. ' +
          'Linked from the delivery record with `rel: provenance`; 404 until it ended.',
        tags,
        params: z.object({ export_id: resourceIdSchema, delivery_job_id: resourceIdSchema }),
        response: { 200: deliveryProvenanceSchema, 404: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const { export_id: exportId, delivery_job_id: id } = request.params;
      const delivery = await cluster.get<Delivery>(deliveryKind, id, namespace);
      if (!delivery || delivery.spec.exportId !== exportId)
        throw new HttpError('NotFound', `Delivery ${id} of export ${exportId} not found`);
      const manifest = await readDeliveryManifest(storageRoot, deliveryProvenancePath(namespace, exportId, id));
      if (!manifest) throw new HttpError('NotFound', `Delivery ${id} of export ${exportId} has not ended`);
      const url = publicBaseUrl(request, config.server.baseUrl);
      const record = `${url}/exports/${exportId}/jobs/${id}`;
      const links = [
        { rel: 'self', href: `${record}/provenance`, type: 'application/geo+json' },
        { rel: 'via', href: record, type: 'application/json', title: 'The delivery record' },
      ];
      // A table version has no provenance document of its own; the table's file is served while it is its version.
      const item = manifest.table
        ? deliveryItem(manifest, `${url}/analytics/${manifest.table.name}.parquet`, links)
        : deliveryItem(manifest, `${url}/jobs/${manifest.job}/results/${PAYLOAD_FILE}`, [
            ...links,
            {
              rel: 'derived_from',
              href: `${url}/jobs/${manifest.job}/results/provenance`,
              type: 'application/geo+json',
            },
          ]);
      return reply.type('application/geo+json').send(item);
    },
  );

  app.get(
    '/exports/:export_id/changelog',
    {
      schema: {
        summary: 'Changelog of the values the export delivered',
        description:
          'One entry per value a delivery created, updated or deleted at the target while `changelog.aggregate` ' +
          'was on, oldest first, paged (`page`, `pageSize`) and filtered by type, data element, period, org unit ' +
          'or delivery.',
        tags,
        params: z.object({ export_id: resourceIdSchema }),
        querystring: changelogQuerySchema,
        response: { 200: changelogPageSchema, 404: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      const exportId = request.params.export_id;
      await getExport(exportId);
      const { page, pageSize, ...filters } = request.query;
      const entries = (await readChangelog(storeFile(storageRoot, changelogPath(namespace, exportId)))).filter((e) =>
        Object.entries(filters).every(([k, v]) => v === undefined || e[k as keyof typeof e] === v),
      );
      return {
        pager: { page, pageSize, pageCount: Math.ceil(entries.length / pageSize), total: entries.length },
        changeLogs: entries.slice((page - 1) * pageSize, page * pageSize),
      };
    },
  );
};
