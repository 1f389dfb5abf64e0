import { ProcessingError } from '../errors.ts';
import type { Graph } from '../graph/types.ts';

/**
 * Values of process graph parameters, innermost scope first: a callback's own parameters, then those of the
 * graphs that enclose it, up to the root, as openEO resolves `from_parameter`.
 */
export class Scope {
  private readonly values: ReadonlyMap<string, unknown>;
  private readonly parent: Scope | undefined;

  constructor(values: Record<string, unknown> | ReadonlyMap<string, unknown>, parent?: Scope) {
    this.values = values instanceof Map ? values : new Map(Object.entries(values));
    this.parent = parent;
  }

  has(name: string): boolean {
    return this.values.has(name) || (this.parent?.has(name) ?? false);
  }

  /** The value of `name`, else the outermost default of the graphs' declarations, else ProcessParameterMissing. */
  get(name: string, graph: Graph): unknown {
    if (this.values.has(name)) return this.values.get(name);
    if (this.parent?.has(name)) return this.parent.get(name, graph);
    const declared = [...graph.parameters].reverse().find((p) => p.name === name && 'default' in p);
    if (declared) return declared.default;
    throw new ProcessingError('ProcessParameterMissing', `No value is given for process graph parameter '${name}'.`);
  }
}
