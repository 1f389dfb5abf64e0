import type { Graph } from '../graph/types.ts';
import { VALUE_KIND } from '../values/kinds.ts';
import type { Scope } from './scope.ts';

/**
 * A child process graph passed as an argument (`{"process_graph": ...}`), bound to the scope it was written in.
 * Processes call it with the parameters their description declares; the kernel compiler reads its graph.
 */
export class Callback {
  readonly [VALUE_KIND] = 'callback' as const;
  readonly graph: Graph;
  readonly scope: Scope;
  private readonly runner: (graph: Graph, parameters: Record<string, unknown>, scope: Scope) => Promise<unknown>;

  constructor(
    graph: Graph,
    scope: Scope,
    runner: (graph: Graph, parameters: Record<string, unknown>, scope: Scope) => Promise<unknown>,
  ) {
    this.graph = graph;
    this.scope = scope;
    this.runner = runner;
  }

  call(parameters: Record<string, unknown>): Promise<unknown> {
    return this.runner(this.graph, parameters, this.scope);
  }

  /** The value of an enclosing parameter the callback reads without being passed it (`context` of a parent). */
  outer(name: string): unknown {
    return this.scope.get(name, this.graph);
  }
}

export function isCallback(value: unknown): value is Callback {
  return value instanceof Callback;
}
