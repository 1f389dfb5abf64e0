import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isApiError } from '../../../core/cluster/errors.ts';
import { ProcessingError, validateProcessGraph } from '../../../core/processing/index.ts';
import type { UserProcess } from '../../../core/processing/index.ts';
import { builtInRegistry } from '../../../core/processing/registry.ts';
import { userProcessMetadata } from '../../../core/processing/descriptions/user-process-metadata.ts';
import {
  replaceWorkflow,
  storedWorkflows,
  userProcessOf,
  userProcessesOf,
} from '../../../core/processing/workflows.ts';
import { workflowKind, type Workflow } from '../../../core/resources/workflow/schema.ts';
import { pageQuerySchema, paginate, sortForPaging, type PageOrder } from '../../pagination.ts';
import { compiledSerializer } from '../../serialization.ts';
import { derived } from '../../services/resources/derived.ts';
import { freeForm, openeoErrorSchema } from './schemas.ts';

const tags = ['openEO user-defined processes'];
const PROCESS_ID = /^\w+$/;
const params = z.object({ process_graph_id: z.string() });
export const userProcessesSchema = freeForm('UserDefinedProcesses', '`processes` (without their graphs) and `links`.');
const userProcessSchema = freeForm('UserDefinedProcess', 'openEO user-defined process, with its graph.');

const notFound = (id: string) =>
  new ProcessingError('ProcessGraphNotFound', `User-defined process '${id.slice(0, 100)}' does not exist.`);

const byId: PageOrder<UserProcess> = { key: (p) => [p.id] };

/** The stored processes in the order `/process_graphs` pages them. */
const processesById = (workflows: readonly Workflow[]) => sortForPaging(userProcessesOf(workflows), byId);

/** The metadata of a process as a list shows it: everything but its graph. */
const summaryOf = ({ process_graph: _graph, ...metadata }: UserProcess) => metadata;

/**
 * openEO's `/process_graphs`: user-defined processes stored as `Workflow` resources (core/processing/workflows.ts),
 * callable from any graph by id (namespace `user`, or none). A process is checked as `POST /result` checks a graph
 * before it is stored.
 */
export const processGraphRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, namespace } = app.stratus;
  const workflows = storedWorkflows(cluster, namespace);
  const stored = app.resourceCaches.of<Workflow>(workflowKind);

  app.get(
    '/process_graphs',
    {
      serializerCompiler: compiledSerializer,
      schema: {
        summary: 'List user-defined processes',
        description: 'By id, paginated with `limit` and `token` (docs/pagination.md); without `limit`, every process.',
        tags,
        querystring: pageQuerySchema,
        response: {
          200: userProcessesSchema,
          400: openeoErrorSchema,
        },
      },
    },
    async (request) => {
      const processes = derived(await stored.list(), processesById);
      const page = paginate(request, processes, byId, {
        baseUrl: app.stratus.config.server.baseUrl,
        invalid: 'PaginationInvalid',
        representation: 'json',
      });
      return { processes: page.items.map(summaryOf), links: page.links };
    },
  );

  app.get(
    '/process_graphs/:process_graph_id',
    {
      schema: {
        summary: 'Full metadata of a user-defined process',
        tags,
        params,
        response: { 200: userProcessSchema, 404: openeoErrorSchema },
      },
    },
    async (request) => {
      const id = request.params.process_graph_id;
      const process = PROCESS_ID.test(id) ? await workflows.get(id) : undefined;
      if (!process) throw notFound(id);
      return { ...process };
    },
  );

  app.put(
    '/process_graphs/:process_graph_id',
    {
      config: { access: 'F_JOB_MANAGE' },
      schema: {
        summary: 'Store a user-defined process',
        description:
          'Stores the process as a `Workflow` resource, or replaces the whole of the process stored under the id: ' +
          "nothing of the earlier one stays. The Workflow's name, labels, annotations and `spec.triggers` stay. " +
          'The write is a compare-and-swap on the resourceVersion: of concurrent PUTs of one id the last to land is ' +
          'stored, whole, and each answers 200 (409 `Conflict` only after 100 lost swaps in a row). `summary`, ' +
          "`description`, `parameters` and `returns` are checked against openEO's schema (400 `ProcessInvalid`, " +
          'naming the member), the graph as `POST /result` checks one; the id of a predefined process is refused ' +
          '(`PredefinedProcessExists`). Answers the process as stored.',
        tags,
        params,
        body: freeForm('UserDefinedProcessBody', 'openEO user-defined process: `process_graph`, and metadata.'),
        response: { 200: userProcessSchema, 400: openeoErrorSchema },
      },
    },
    async (request) => {
      const id = request.params.process_graph_id;
      if (!PROCESS_ID.test(id) || id.length > 100)
        throw new ProcessingError(
          'ProcessGraphInvalid',
          `'${id.slice(0, 100)}' is not a process id: letters, digits and _.`,
        );
      if (builtInRegistry().get(id))
        throw new ProcessingError('PredefinedProcessExists', `A predefined process '${id}' exists.`);
      const body = request.body as Partial<UserProcess>;
      if (body.id !== undefined && body.id !== null && body.id !== id)
        throw new ProcessingError('ProcessGraphInvalid', `The body's id '${String(body.id)}' is not '${id}'.`);
      if (body.process_graph === undefined || body.process_graph === null)
        throw new ProcessingError('ProcessGraphMissing', 'The process has no process_graph.');
      const metadata = userProcessMetadata(body, { context: 'Invalid process specified' });
      await validateProcessGraph(body.process_graph, {
        userProcesses: workflows,
        arguments: Object.fromEntries((metadata.parameters ?? []).map((p) => [p.name, null])),
      });
      const stored = await replaceWorkflow(cluster, namespace, { id, ...metadata, process_graph: body.process_graph });
      return { ...userProcessOf(stored) };
    },
  );

  app.delete(
    '/process_graphs/:process_graph_id',
    {
      config: { access: 'F_JOB_MANAGE' },
      schema: {
        summary: 'Delete a user-defined process',
        tags,
        params,
        response: { 204: z.null().describe('Deleted.'), 404: openeoErrorSchema },
      },
    },
    async (request, reply) => {
      const id = request.params.process_graph_id;
      const existing = PROCESS_ID.test(id) ? await workflows.find(id) : undefined;
      if (!existing) throw notFound(id);
      await cluster.delete(workflowKind, existing.metadata.name, namespace).catch((err: unknown) => {
        if (!isApiError(err, 'NotFound')) throw err;
      });
      return reply.code(204).send(null);
    },
  );
};
