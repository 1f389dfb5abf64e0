/**
 * Bounds that keep a hostile or careless graph from costing more than a refusal: checked while parsing (nodes,
 * nesting) and while evaluating (array and cube sizes), each answered with a 4xx ProcessingError.
 */
export interface EngineLimits {
  /** Nodes in a graph with all its callbacks and the user-defined processes it calls. */
  maxNodes: number;
  /** Nesting of callbacks (a callback of a callback of ...). */
  maxCallbackDepth: number;
  /** Nesting of user-defined processes calling user-defined processes. */
  maxUserProcessDepth: number;
  /** Elements of an array a process may create (`array_create` with `repeat`, ...). */
  maxArrayLength: number;
  /** Cells of a data cube that is materialized in memory as a whole (results, `apply_dimension` inputs, ...). */
  maxCubeCells: number;
}

export const DEFAULT_LIMITS: EngineLimits = {
  maxNodes: 2_000,
  maxCallbackDepth: 16,
  maxUserProcessDepth: 16,
  maxArrayLength: 10_000_000,
  maxCubeCells: 500_000_000,
};
