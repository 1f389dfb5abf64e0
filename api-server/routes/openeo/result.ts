import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { datasetCollections } from '../../../core/processing/collections/datasets.ts';
import { readBudget } from '../../../core/processing/collections/read-budget.ts';
import { storedFeatureCollections } from '../../../core/processing/collections/feature-collections.ts';
import { isProcessingError, ProcessingError, runProcessGraph } from '../../../core/processing/index.ts';
import { formatOptions } from '../../../core/processing/results/display.ts';
import { OUTPUT_FORMATS, outputFormat, type OutputFormat } from '../../../core/processing/results/outputs.ts';
import type { ResultSink } from '../../../core/processing/services.ts';
import { storedWorkflows } from '../../../core/processing/workflows.ts';
import { closeProcessPool, configureProcessPool } from '../../../core/workers/pool.ts';
import { jobResultRoutes } from './job-results.ts';
import { jobRoutes } from './jobs.ts';
import { processGraphRoutes } from './process-graphs.ts';
import { freeForm, openeoErrorSchema } from './schemas.ts';
import { openEoRoutes } from '../../plugins/app/errors.ts';

const tags = ['openEO processing'];

/** What a synchronous run's `save_result` was given: the value and its format, written as the response. */
interface Saved {
  value: unknown;
  format: OutputFormat;
  options: Record<string, unknown>;
}

function responseSink(): ResultSink & { saved?: Saved } {
  const sink: ResultSink & { saved?: Saved } = {
    formats: () => OUTPUT_FORMATS.map((f) => f.name),
    save: async (value, name, options) => {
      sink.saved = { value, format: outputFormat(name)!, options };
      return true;
    },
  };
  return sink;
}

/**
 * `POST /result`: a process graph run while the client waits, over the datasets and feature collections this
 * instance serves, bounded by `processing.sync.*` (wall time, cells held, cells read, answer size). Past a limit
 * the answer is 400 `ProcessGraphComplexity` pointing to batch jobs; a client that goes away cancels the run.
 */
export const resultRoute: FastifyPluginAsyncZod = async (app) => {
  const { cluster, namespace, storageRoot, config } = app.stratus;
  const { timeoutMs, maxCells, maxReadCells, maxOutputBytes } = config.processing.sync;
  const stores = { cluster, namespace, storageRoot };
  const features = storedFeatureCollections(stores);
  const userProcesses = storedWorkflows(cluster, namespace);

  app.post(
    '/result',
    {
      config: { access: 'F_JOB_MANAGE' },
      schema: {
        summary: 'Process and download data synchronously',
        description:
          'Runs `process.process_graph` and answers the value `save_result` was given, in its format (`JSON`, or ' +
          "`GTiff` for a raster cube), else the result node's value as JSON. Data cubes in JSON are " +
          '`{"type": "DataCube", "dimensions", "data"}` (docs/processing.md). Bounded by ' +
          '`processing.sync.*`: wall time, cells held, cells read, answer size.',
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
      const deadline = AbortSignal.timeout(timeoutMs);
      const gone = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) gone.abort();
      });
      const signal = AbortSignal.any([deadline, gone.signal]);
      const results = responseSink();
      try {
        if (graph === undefined || graph === null)
          throw new ProcessingError('ProcessGraphMissing', 'The request has no process.process_graph.');
        const value = await runProcessGraph(graph, {
          // A budget per run: the cells read by every load_collection of the graph count together.
          services: {
            collections: datasetCollections({ ...stores, budget: readBudget(maxReadCells) }),
            features,
            results,
          },
          userProcesses,
          limits: { maxCubeCells: maxCells },
          signal,
        });
        const {
          value: saved,
          format,
          options,
        } = results.saved ?? { value, format: outputFormat('JSON')!, options: {} };
        const optionsFor = formatOptions(graph, cluster, namespace);
        const body = await format.write(saved, maxCells, signal, await optionsFor(format.name, options));
        const size = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
        if (size > maxOutputBytes)
          throw new ProcessingError(
            'ProcessGraphComplexity',
            `The result takes ${size} bytes, more than the ${maxOutputBytes} a synchronous run may answer; run it as a batch job (POST /jobs).`,
          );
        // Already written: fastify sends a string or bytes as they are, without the schema's serializer.
        return reply
          .type(format.mediaType)
          .header('content-disposition', `inline; filename="${format.fileName}"`)
          .send(body as unknown as Record<string, unknown>);
      } catch (err) {
        if (gone.signal.aborted && !deadline.aborted) {
          // Nobody is left to answer: the run stopped at its next chunk, and the socket is closed.
          request.log.info('synchronous run cancelled: the client closed its connection');
          return reply.hijack();
        }
        if (deadline.aborted)
          throw new ProcessingError(
            'ProcessGraphComplexity',
            `The run takes longer than the ${timeoutMs / 1000} s a synchronous run may; run it as a batch job (POST /jobs).`,
          );
        throw err;
      }
    },
  );
};

/** The routes that run or store process graphs, whose refusals are the engine's openEO errors. */
export const processingRoutes: FastifyPluginAsyncZod = async (app) => {
  openEoRoutes(app);
  // The engine's CPU-heavy work runs on worker threads, so that the server answers other requests meanwhile.
  configureProcessPool(app.stratus.config.processing.workerThreads);
  app.addHook('onClose', () => closeProcessPool());
  app.setErrorHandler((err, _request, reply) => {
    if (isProcessingError(err)) return reply.code(err.status).send(err.toJSON());
    throw err;
  });
  await app.register(resultRoute);
  await app.register(processGraphRoutes);
  await app.register(jobRoutes);
  await app.register(jobResultRoutes);
};
