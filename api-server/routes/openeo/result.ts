import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ProcessingError } from '../../../core/processing/index.ts';
import { referencedResources } from '../../../core/processing/jobs/resolve.ts';
import { SyncRunner } from '../../../core/processing/sync/runner.ts';
import { DECODE_CHUNK } from '../../../core/processing/cube/encoded-chunk.ts';
import { ZONAL_CHUNK } from '../../../core/processing/zonal/chunk-task.ts';
import { warmZonal } from '../../../core/processing/zonal/warm-up.ts';
import { closeProcessPool, configureProcessPool, processPool } from '../../../core/workers/pool.ts';
import { jobResultRoutes } from './job-results.ts';
import { jobRoutes } from './jobs.ts';
import { jobProvenanceRoutes } from './provenance.ts';
import { processGraphRoutes } from './process-graphs.ts';
import { freeForm, openeoErrorSchema } from './schemas.ts';
import { markOpenEoRoutes } from '../../plugins/app/errors.ts';

const tags = ['openEO processing'];

/**
 * `POST /result`: a process graph run while the client waits, over the datasets and feature collections this
 * instance serves, bounded by `processing.sync.*` (wall time, cells held, cells read, memory, answer size). The
 * main thread only pins what the graph refers to; the run and the encoding of its answer happen in a worker
 * thread with its own heap limit (`core/processing/sync/`). Past a limit the answer is 400
 * `ProcessGraphComplexity` naming the limit and pointing to batch jobs; a client that goes away cancels the run.
 */
export const resultRoute: FastifyPluginAsyncZod = async (app) => {
  const { cluster, namespace, storageRoot, config } = app.stratus;
  const runner = new SyncRunner(config.processing.sync);
  app.addHook('onClose', async () => runner.close());

  app.post(
    '/result',
    {
      config: { access: 'F_JOB_MANAGE' },
      schema: {
        summary: 'Process and download data synchronously',
        description:
          'Runs `process.process_graph` and answers the value `save_result` was given, in its format (one of ' +
          '`/file_formats`; the predefined `aggregate_to_chap_csv` and `aggregate_to_dhis2_json` save theirs), else ' +
          "the result node's value as JSON. Data cubes in JSON are " +
          '`{"type": "DataCube", "dimensions", "data"}` (docs/processing.md). The run executes in a worker thread ' +
          'of its own, so other requests are answered meanwhile. Bounded by `processing.sync.*`: wall time, cells ' +
          'held, cells read, memory of arrays and cubes across the graph, heap of the thread, answer size; past ' +
          'one, 400 `ProcessGraphComplexity` naming the limit. At most `processing.sync.concurrency` runs execute ' +
          'at once; others wait, within their wall time.',
        tags,
        body: freeForm('SynchronousResultRequest', 'openEO `process` with its `process_graph`, and options.'),
        response: {
          200: freeForm('SynchronousResult', 'The value of the run: JSON, or a GeoTIFF (`image/tiff`).'),
          400: openeoErrorSchema,
          404: openeoErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const graph = (request.body.process as { process_graph?: unknown } | undefined)?.process_graph;
      if (graph === undefined || graph === null)
        throw new ProcessingError('ProcessGraphMissing', 'The request has no process.process_graph.');
      const gone = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) gone.abort();
      });
      try {
        const resources = await referencedResources(graph, cluster, namespace);
        const { body, mediaType, fileName } = await runner.run(
          { processGraph: graph, namespace, storageRoot, resources },
          gone.signal,
        );
        // Already written: fastify sends bytes as they are, without the schema's serializer.
        return reply
          .type(mediaType)
          .header('content-disposition', `inline; filename="${fileName}"`)
          .send(Buffer.from(body.buffer, body.byteOffset, body.byteLength) as unknown as Record<string, unknown>);
      } catch (err) {
        if (gone.signal.aborted) {
          // Nobody is left to answer: the run's thread is terminated, and the socket is closed.
          request.log.info('synchronous run cancelled: the client closed its connection');
          return reply.hijack();
        }
        throw err;
      }
    },
  );
};

/** The routes that run or store process graphs, whose refusals are the engine's openEO errors (the error handler
 * answers them in openEO's envelope). */
export const processingRoutes: FastifyPluginAsyncZod = async (app) => {
  markOpenEoRoutes(app);
  // The engine's CPU-heavy work runs on worker threads, so that the server answers other requests meanwhile.
  configureProcessPool(app.stratus.config.processing.workerThreads);
  app.addHook('onClose', () => closeProcessPool());
  // Once listening, the threads boot and load the chunk decoder and the zonal task in the background, then a zonal
  // mean on made-up data compiles the zonal code, so that a fresh server's first tile, stored read or zonal request
  // does not wait for them. Not at start-up (listening stays as quick) nor on a request's path; a server that never
  // listens (answered by inject) starts no thread until a task needs one.
  app.addHook('onListen', async () => {
    void processPool()
      .warm(DECODE_CHUNK, ZONAL_CHUNK)
      .then(warmZonal)
      .catch((err: unknown) => app.log.warn({ err }, 'the zonal warm-up failed; the first zonal request compiles it'));
  });
  await app.register(resultRoute);
  await app.register(processGraphRoutes);
  await app.register(jobRoutes);
  await app.register(jobResultRoutes);
  await app.register(jobProvenanceRoutes);
};
