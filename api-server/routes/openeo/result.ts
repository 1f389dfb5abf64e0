import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { datasetCollections } from '../../../core/processing/collections/datasets.ts';
import { storedFeatureCollections } from '../../../core/processing/collections/feature-collections.ts';
import { isProcessingError, ProcessingError, runProcessGraph } from '../../../core/processing/index.ts';
import { JSON_OUTPUT, resultJson } from '../../../core/processing/results/json.ts';
import type { ResultSink } from '../../../core/processing/services.ts';
import { freeForm, openeoErrorSchema } from './schemas.ts';

const tags = ['openEO processing'];

/** What a synchronous run's `save_result` writes: its value, kept to be the response (JSON is the one format). */
function responseSink(): ResultSink & { saved?: unknown } {
  const sink: ResultSink & { saved?: unknown } = {
    formats: () => [JSON_OUTPUT.name],
    save: async (data) => {
      sink.saved = data;
      return true;
    },
  };
  return sink;
}

/**
 * `POST /result`: a process graph run while the client waits, over the datasets and feature collections this
 * instance serves, bounded by `processing.sync.*` (wall time and cells). Past a limit the answer is 400
 * `ProcessGraphComplexity` pointing to batch jobs; a client that goes away cancels the run.
 */
export const resultRoute: FastifyPluginAsyncZod = async (app) => {
  const { cluster, namespace, storageRoot, config } = app.stratus;
  const { timeoutMs, maxCells } = config.processing.sync;
  const stores = { cluster, namespace, storageRoot };
  const collections = datasetCollections(stores);
  const features = storedFeatureCollections(stores);

  app.post(
    '/result',
    {
      schema: {
        summary: 'Process and download data synchronously',
        description:
          'Runs `process.process_graph` and answers its value as JSON: the value `save_result` was given (format ' +
          '`JSON`), else the result node\'s value. Data cubes are `{"type": "DataCube", "dimensions", "data"}` ' +
          '(docs/processing.md). Bounded by `processing.sync.timeout` and `processing.sync.max_cells`.',
        tags,
        body: freeForm('SynchronousResultRequest', 'openEO `process` with its `process_graph`, and options.'),
        response: {
          200: freeForm('SynchronousResult', 'The value of the run, as JSON.'),
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
          services: { collections, features, results },
          limits: { maxCubeCells: maxCells },
          signal,
        });
        const body = await resultJson('saved' in results ? results.saved : value, maxCells, signal);
        // Already JSON text: fastify sends a string as it is, without the schema's serializer.
        return reply.type('application/json').send(body as unknown as Record<string, unknown>);
      } catch (err) {
        if (deadline.aborted)
          throw new ProcessingError(
            'ProcessGraphComplexity',
            `The run takes longer than the ${timeoutMs / 1000} s a synchronous run may; run it as a batch job (POST /jobs).`,
          );
        throw err;
      }
    },
  );

  app.setErrorHandler((err, _request, reply) => {
    if (isProcessingError(err)) return reply.code(err.status).send(err.toJSON());
    throw err;
  });
};
