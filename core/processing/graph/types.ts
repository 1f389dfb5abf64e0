import type { ParameterDescription, ProcessDescription } from '../descriptions/types.ts';

/** A process graph as JSON: node ids mapped to nodes. */
export type ProcessGraphJson = Record<string, unknown>;

/**
 * An argument after parsing. Literals without references stay whole (`literal`); arrays and objects that hold
 * references keep their structure so that only the references are resolved at run time.
 */
export type Argument =
  | { kind: 'literal'; value: unknown }
  | { kind: 'node'; node: string }
  | { kind: 'parameter'; name: string }
  | { kind: 'callback'; graph: Graph }
  | { kind: 'array'; items: Argument[] }
  | { kind: 'object'; entries: Record<string, Argument> };

/** What a node calls: a predefined process of the registry, or a user-defined process with its parsed graph. */
export type NodeTarget = { kind: 'predefined'; id: string } | { kind: 'user'; id: string; graph: Graph };

export interface GraphNode {
  id: string;
  /** `parent/child/...`: the node ids from the root graph down, for messages. */
  path: string;
  processId: string;
  namespace: string | null;
  target: NodeTarget;
  description: ProcessDescription;
  arguments: Record<string, Argument>;
}

export interface Graph {
  nodes: ReadonlyMap<string, GraphNode>;
  /** Node ids in an order where every node comes after the nodes it reads. */
  order: readonly string[];
  result: string;
  /** The parameters this graph may read with `from_parameter` (its own, then its parents'), with defaults. */
  parameters: readonly ParameterDescription[];
  /** Path of the node that owns this graph as a callback ('' for the root). */
  path: string;
}

/** A user-defined process as a resolver returns it (`Workflow` resources, in the API server and the worker). */
export interface UserProcess {
  id: string;
  summary?: string;
  description?: string;
  parameters?: ParameterDescription[];
  returns?: ProcessDescription['returns'];
  process_graph: ProcessGraphJson;
}

export interface UserProcessResolver {
  get(id: string, signal?: AbortSignal): Promise<UserProcess | undefined>;
}
