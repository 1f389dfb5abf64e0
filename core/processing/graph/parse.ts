/**
 * Parses and validates a process graph with openEO 1.2 semantics before anything runs: nodes with `process_id`
 * and `arguments`, exactly one `result` node per graph, `from_node` references inside the same graph, no cycles,
 * `from_parameter` references to a parameter of the graph or of an enclosing one, callbacks
 * (`{"process_graph": ...}` arguments) parsed as child graphs with the parameters their process declares, process
 * ids resolved by namespace (`null`: user-defined first, then predefined; `backend`; `user`), and every argument
 * checked against its process's description: no unknown names, no missing required parameter, literals fitting
 * their JSON Schema. Limits on nodes and nesting refuse hostile graphs before any work. Every refusal is a
 * ProcessingError naming the node.
 */
import type { ParameterDescription, ProcessDescription } from '../descriptions/types.ts';
import { userProcessMetadata } from '../descriptions/user-process-metadata.ts';
import { ProcessingError } from '../errors.ts';
import { callbackParameters, mismatch } from '../schema/match.ts';
import { isPlainObject } from '../values/kinds.ts';
import type { EngineLimits } from './limits.ts';
import type { Argument, Graph, GraphNode, NodeTarget, UserProcessResolver } from './types.ts';

/** The predefined processes a graph may call. */
export interface ProcessCatalogue {
  description(id: string): ProcessDescription | undefined;
}

export interface ParseOptions {
  processes: ProcessCatalogue;
  userProcesses?: UserProcessResolver;
  limits: EngineLimits;
  /** Parameters the root graph may read (a user-defined process's own; none for a plain request). */
  parameters?: readonly ParameterDescription[];
  signal?: AbortSignal;
}

const PROCESS_ID = /^\w+$/;
/** Nesting of arrays and objects inside one argument; deeper literals are refused rather than walked. */
const MAX_ARGUMENT_DEPTH = 100;

interface ParseState {
  options: ParseOptions;
  nodes: number;
  /** User-defined processes being parsed, outermost first, to refuse recursion. */
  userStack: string[];
  userGraphs: Map<string, { graph: Graph; description: ProcessDescription }>;
}

function invalid(message: string, node?: string): ProcessingError {
  return new ProcessingError('ProcessGraphInvalid', message, node === undefined ? {} : { node });
}

/** Parses a process graph (the value of `process_graph`). */
export async function parseProcessGraph(json: unknown, options: ParseOptions): Promise<Graph> {
  const state: ParseState = { options, nodes: 0, userStack: [], userGraphs: new Map() };
  if (json === undefined || json === null || (isPlainObject(json) && Object.keys(json).length === 0))
    throw new ProcessingError('ProcessGraphMissing', 'The request contains no process graph.');
  return parseGraph(state, json, options.parameters ?? [], '', 0, 0);
}

async function parseGraph(
  state: ParseState,
  json: unknown,
  scope: readonly ParameterDescription[],
  path: string,
  depth: number,
  userDepth: number,
): Promise<Graph> {
  if (!isPlainObject(json)) throw invalid('A process graph must be an object of process nodes.', path || undefined);
  const entries = Object.entries(json);
  if (entries.length === 0) throw invalid('A process graph must have at least one node.', path || undefined);
  state.nodes += entries.length;
  if (state.nodes > state.options.limits.maxNodes)
    throw new ProcessingError(
      'ProcessGraphComplexity',
      `The process graph has more than ${state.options.limits.maxNodes} nodes (callbacks and user-defined processes included).`,
    );
  for (const [id, raw] of entries) {
    if (!isPlainObject(raw)) throw invalid('A process node must be an object.', path ? `${path}/${id}` : id);
  }
  const results = entries.filter(([, node]) => isPlainObject(node) && node.result === true).map(([id]) => id);
  if (results.length !== 1)
    throw invalid(
      results.length === 0
        ? 'The process graph has no result node (one node must have "result": true).'
        : `The process graph has ${results.length} result nodes (${results.join(', ')}); exactly one is allowed.`,
      path || undefined,
    );
  const nodes = new Map<string, GraphNode>();
  for (const [id, raw] of entries) {
    const nodePath = path ? `${path}/${id}` : id;
    nodes.set(id, await parseNode(state, id, raw, scope, nodePath, depth, userDepth));
  }
  for (const node of nodes.values()) {
    for (const ref of nodeReferences(node.arguments))
      if (!nodes.has(ref))
        throw invalid(`The argument refers to node '${ref}', which is not in the same process graph.`, node.path);
  }
  return { nodes, order: topologicalOrder(nodes), result: results[0]!, parameters: scope, path };
}

async function parseNode(
  state: ParseState,
  id: string,
  raw: unknown,
  scope: readonly ParameterDescription[],
  path: string,
  depth: number,
  userDepth: number,
): Promise<GraphNode> {
  if (!isPlainObject(raw)) throw invalid('A process node must be an object.', path);
  const { process_id: processId, namespace = null, arguments: args = {} } = raw;
  if (typeof processId !== 'string' || !PROCESS_ID.test(processId))
    throw invalid('A process node needs a "process_id" matching ^\\w+$.', path);
  if (namespace !== null && typeof namespace !== 'string') throw invalid('"namespace" must be a string or null.', path);
  if (!isPlainObject(args)) throw invalid('"arguments" must be an object.', path);
  if (raw.result !== undefined && typeof raw.result !== 'boolean') throw invalid('"result" must be a boolean.', path);
  const { target, description } = await resolveProcess(state, processId, namespace, path, userDepth);
  const parsed: Record<string, Argument> = {};
  const declared = new Map(description.parameters.map((p) => [p.name, p]));
  for (const [name, value] of Object.entries(args)) {
    const parameter = declared.get(name);
    if (!parameter)
      throw new ProcessingError(
        'ProcessParameterUnsupported',
        `Process '${processId}' does not support parameter '${name}'.`,
        { node: path },
      );
    parsed[name] = await parseArgument(state, value, parameter, processId, scope, path, depth, userDepth, 0);
  }
  for (const parameter of description.parameters) {
    if (!parameter.optional && !(parameter.name in parsed))
      throw new ProcessingError(
        'ProcessParameterRequired',
        `Process '${processId}' parameter '${parameter.name}' is required.`,
        { node: path },
      );
  }
  return { id, path, processId, namespace, target, description, arguments: parsed };
}

async function resolveProcess(
  state: ParseState,
  id: string,
  namespace: string | null,
  path: string,
  userDepth: number,
): Promise<{ target: NodeTarget; description: ProcessDescription }> {
  const unsupported = () =>
    new ProcessingError(
      'ProcessUnsupported',
      `Process with identifier '${id}' is not available in namespace '${namespace ?? 'null'}'.`,
      { node: path },
    );
  if (namespace !== null && namespace !== 'backend' && namespace !== 'user') throw unsupported();
  if (namespace !== 'backend' && state.options.userProcesses) {
    const user = await userProcess(state, id, path, userDepth);
    if (user) return { target: { kind: 'user', id, graph: user.graph }, description: user.description };
  }
  const predefined = namespace === 'user' ? undefined : state.options.processes.description(id);
  if (!predefined) throw unsupported();
  return { target: { kind: 'predefined', id }, description: predefined };
}

async function userProcess(
  state: ParseState,
  id: string,
  path: string,
  userDepth: number,
): Promise<{ graph: Graph; description: ProcessDescription } | undefined> {
  const cached = state.userGraphs.get(id);
  if (cached) return cached;
  if (state.userStack.includes(id))
    throw invalid(`User-defined process '${id}' calls itself (${[...state.userStack, id].join(' -> ')}).`, path);
  const definition = await state.options.userProcesses!.get(id, state.options.signal);
  if (!definition) return undefined;
  if (userDepth + 1 > state.options.limits.maxUserProcessDepth)
    throw new ProcessingError(
      'ProcessGraphComplexity',
      `User-defined processes are nested more than ${state.options.limits.maxUserProcessDepth} deep.`,
      { node: path },
    );
  // A Workflow applied by hand reaches here unchecked: its declarations are read only once they fit.
  const metadata = userProcessMetadata(definition, {
    context: `User-defined process '${id}' is stored with invalid metadata; store it again`,
    node: path,
  });
  const parameters = metadata.parameters ?? [];
  const description: ProcessDescription = {
    id,
    description: metadata.description ?? metadata.summary ?? `User-defined process ${id}.`,
    parameters,
    returns: metadata.returns ?? { schema: {} },
  };
  state.userStack.push(id);
  try {
    const graph = await parseGraph(state, definition.process_graph, parameters, `${path}[${id}]`, 0, userDepth + 1);
    const entry = { graph, description };
    state.userGraphs.set(id, entry);
    return entry;
  } finally {
    state.userStack.pop();
  }
}

function isReference(value: Record<string, unknown>, key: 'from_node' | 'from_parameter'): boolean {
  return key in value;
}

async function parseArgument(
  state: ParseState,
  value: unknown,
  parameter: ParameterDescription,
  processId: string,
  scope: readonly ParameterDescription[],
  path: string,
  depth: number,
  userDepth: number,
  nesting: number,
): Promise<Argument> {
  if (nesting > MAX_ARGUMENT_DEPTH)
    throw new ProcessingError(
      'ProcessParameterInvalid',
      `The value passed for parameter '${parameter.name}' in process '${processId}' is invalid: nested more than ${MAX_ARGUMENT_DEPTH} levels deep.`,
      { node: path },
    );
  // Most arguments hold no reference or callback at any depth: one synchronous scan makes them a literal.
  const plain = referenceFree(value, MAX_ARGUMENT_DEPTH - nesting);
  if (plain === undefined)
    throw new ProcessingError(
      'ProcessParameterInvalid',
      `The value passed for parameter '${parameter.name}' in process '${processId}' is invalid: nested more than ${MAX_ARGUMENT_DEPTH} levels deep.`,
      { node: path },
    );
  if (plain) return checkedLiteral({ kind: 'literal', value }, parameter, processId, path, nesting);
  if (Array.isArray(value)) {
    const items: Argument[] = [];
    for (const item of value)
      items.push(await parseArgument(state, item, parameter, processId, scope, path, depth, userDepth, nesting + 1));
    return checkedLiteral(
      items.every((a) => a.kind === 'literal') ? { kind: 'literal', value } : { kind: 'array', items },
      parameter,
      processId,
      path,
      nesting,
    );
  }
  if (!isPlainObject(value)) return checkedLiteral({ kind: 'literal', value }, parameter, processId, path, nesting);
  for (const key of ['from_node', 'from_parameter'] as const) {
    if (!isReference(value, key)) continue;
    const target = value[key];
    if (typeof target !== 'string' || Object.keys(value).length !== 1)
      throw invalid(`A "${key}" reference must be an object with the single string property "${key}".`, path);
    if (key === 'from_node') return { kind: 'node', node: target };
    if (!scope.some((p) => p.name === target))
      throw new ProcessingError(
        'ProcessParameterMissing',
        `The process graph parameter '${target}' is not defined here (available: ${scope.map((p) => p.name).join(', ') || 'none'}).`,
        { node: path },
      );
    return { kind: 'parameter', name: target };
  }
  if ('process_graph' in value) {
    const declared = nesting <= 1 ? callbackParameters(parameter.schema, nesting === 1) : undefined;
    if (!declared)
      throw new ProcessingError(
        'ProcessParameterInvalid',
        `The value passed for parameter '${parameter.name}' in process '${processId}' is invalid: it does not take a process graph.`,
        { node: path },
      );
    if (depth + 1 > state.options.limits.maxCallbackDepth)
      throw new ProcessingError(
        'ProcessGraphComplexity',
        `Callbacks are nested more than ${state.options.limits.maxCallbackDepth} deep.`,
        { node: path },
      );
    const own = declared.map((p) => ({
      name: p.name,
      description: '',
      schema: p.schema ?? {},
    }));
    // Inner names shadow outer ones: the most specific scope first, as openEO resolves them.
    const childScope = [...own, ...scope.filter((p) => !own.some((o) => o.name === p.name))];
    const graph = await parseGraph(state, value.process_graph, childScope, path, depth + 1, userDepth);
    return { kind: 'callback', graph };
  }
  const entries: Record<string, Argument> = {};
  let literal = true;
  for (const [key, item] of Object.entries(value)) {
    entries[key] = await parseArgument(state, item, parameter, processId, scope, path, depth, userDepth, nesting + 1);
    if (entries[key].kind !== 'literal') literal = false;
  }
  return checkedLiteral(
    literal ? { kind: 'literal', value } : { kind: 'object', entries },
    parameter,
    processId,
    path,
    nesting,
  );
}

/**
 * True when a value holds no `from_node`, `from_parameter` or `process_graph` object at any depth, false when it
 * does, undefined when it nests deeper than `depth` (iterative: a hostile nesting cannot exhaust the stack).
 */
function referenceFree(value: unknown, depth: number): boolean | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, level] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (level > depth) return undefined;
    if (Array.isArray(item)) {
      for (const child of item) stack.push([child, level + 1]);
    } else if (isPlainObject(item)) {
      if ('from_node' in item || 'from_parameter' in item || 'process_graph' in item) return false;
      for (const child of Object.values(item)) stack.push([child, level + 1]);
    }
  }
  return true;
}

/** Checks a whole literal argument against its schema (nested parts are checked as part of the whole). */
function checkedLiteral(
  argument: Argument,
  parameter: ParameterDescription,
  processId: string,
  path: string,
  nesting: number,
): Argument {
  if (nesting > 0 || argument.kind !== 'literal') return argument;
  const reason = mismatch(parameter.schema, argument.value);
  if (reason)
    throw new ProcessingError(
      'ProcessParameterInvalid',
      `The value passed for parameter '${parameter.name}' in process '${processId}' is invalid: ${reason}`,
      { node: path },
    );
  return argument;
}

/** The node ids an argument reads (not looking into callbacks, which are graphs of their own). */
export function nodeReferences(args: Record<string, Argument>): string[] {
  const refs: string[] = [];
  const walk = (a: Argument) => {
    if (a.kind === 'node') refs.push(a.node);
    else if (a.kind === 'array') a.items.forEach(walk);
    else if (a.kind === 'object') Object.values(a.entries).forEach(walk);
  };
  Object.values(args).forEach(walk);
  return refs;
}

function topologicalOrder(nodes: ReadonlyMap<string, GraphNode>): string[] {
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  // Iterative depth-first search: a long chain of nodes must not exhaust the call stack.
  for (const start of nodes.keys()) {
    if (state.get(start) === 'done') continue;
    const stack: { id: string; refs: string[]; next: number }[] = [
      { id: start, refs: nodeReferences(nodes.get(start)!.arguments), next: 0 },
    ];
    state.set(start, 'visiting');
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next < top.refs.length) {
        const ref = top.refs[top.next++]!;
        const seen = state.get(ref);
        if (seen === 'visiting')
          throw invalid(`The process graph has a cycle through node '${ref}'.`, nodes.get(ref)!.path);
        if (seen === undefined) {
          state.set(ref, 'visiting');
          stack.push({ id: ref, refs: nodeReferences(nodes.get(ref)!.arguments), next: 0 });
        }
      } else {
        state.set(top.id, 'done');
        order.push(top.id);
        stack.pop();
      }
    }
  }
  return order;
}
