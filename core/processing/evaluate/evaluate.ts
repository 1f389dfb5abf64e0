/**
 * Runs a parsed process graph: every node once, in dependency order, each with its arguments resolved (node
 * results, parameters, callbacks bound to their scope), defaults filled in from its description, values that
 * were not literal checked against the parameter schemas, then its process run. Data cubes stay lazy: a node's
 * result is a description of work until something reads chunks. Errors are located at the failing node.
 */
import { ProcessingError } from '../errors.ts';
import type { Argument, Graph, GraphNode } from '../graph/types.ts';
import type { EngineLimits } from '../graph/limits.ts';
import { arrayBytes, BYTES_PER_ARRAY_ELEMENT, type MemoryBudget } from '../memory-budget.ts';
import type { ProcessContext, ProcessRegistry } from '../process.ts';
import { mismatch } from '../schema/match.ts';
import type { EngineServices } from '../services.ts';
import { Callback } from './callback.ts';
import { Scope } from './scope.ts';

export interface Environment {
  processes: ProcessRegistry;
  limits: EngineLimits;
  services: EngineServices;
  signal?: AbortSignal;
  memory?: MemoryBudget;
}

/** Evaluates `graph` with `parameters` bound (inside `parent`'s scope) and returns its result node's value. */
export async function evaluateGraph(
  graph: Graph,
  parameters: Record<string, unknown>,
  environment: Environment,
  parent?: Scope,
): Promise<unknown> {
  const scope = new Scope(parameters, parent);
  const results = new Map<string, unknown>();
  // Every node's arrays count while this graph holds them, which is until it returns.
  let charged = 0;
  try {
    for (const id of graph.order) {
      environment.signal?.throwIfAborted();
      const node = graph.nodes.get(id)!;
      try {
        const value = await evaluateNode(node, graph, scope, results, environment);
        const bytes = arrayBytes(value);
        if (environment.memory && bytes > 0) {
          environment.memory.charge(
            bytes,
            `The array of ${bytes / BYTES_PER_ARRAY_ELEMENT} elements of node '${node.path}'`,
          );
          charged += bytes;
        }
        results.set(id, value);
      } catch (err) {
        throw err instanceof ProcessingError ? err.at(node.path) : err;
      }
    }
    return results.get(graph.result);
  } finally {
    environment.memory?.release(charged);
  }
}

async function evaluateNode(
  node: GraphNode,
  graph: Graph,
  scope: Scope,
  results: ReadonlyMap<string, unknown>,
  environment: Environment,
): Promise<unknown> {
  const args: Record<string, unknown> = {};
  for (const [name, argument] of Object.entries(node.arguments)) {
    args[name] = resolve(argument, graph, scope, results, environment);
  }
  for (const parameter of node.description.parameters) {
    const given = node.arguments[parameter.name];
    if (given === undefined) {
      if ('default' in parameter) args[parameter.name] = parameter.default;
      continue;
    }
    if (given.kind === 'literal' || given.kind === 'callback') continue; // checked while parsing
    const reason = mismatch(parameter.schema, args[parameter.name]);
    if (reason)
      throw new ProcessingError(
        'ProcessParameterInvalid',
        `The value passed for parameter '${parameter.name}' in process '${node.processId}' is invalid: ${reason}`,
      );
  }
  if (node.target.kind === 'user') return evaluateGraph(node.target.graph, args, environment);
  const process = environment.processes.get(node.target.id);
  if (!process)
    throw new ProcessingError('ProcessUnsupported', `Process with identifier '${node.processId}' is not available.`);
  const context: ProcessContext = {
    limits: environment.limits,
    signal: environment.signal,
    node: node.path,
    services: environment.services,
    processes: environment.processes,
    ...(environment.memory && { memory: environment.memory }),
  };
  return await process.run(args, context);
}

function resolve(
  argument: Argument,
  graph: Graph,
  scope: Scope,
  results: ReadonlyMap<string, unknown>,
  environment: Environment,
): unknown {
  switch (argument.kind) {
    case 'literal':
      return argument.value;
    case 'node':
      return results.get(argument.node);
    case 'parameter':
      return scope.get(argument.name, graph);
    case 'callback':
      return new Callback(argument.graph, scope, (child, parameters, outer) =>
        evaluateGraph(child, parameters, environment, outer),
      );
    case 'array':
      return argument.items.map((item) => resolve(item, graph, scope, results, environment));
    case 'object':
      return Object.fromEntries(
        Object.entries(argument.entries).map(([key, item]) => [key, resolve(item, graph, scope, results, environment)]),
      );
  }
}
