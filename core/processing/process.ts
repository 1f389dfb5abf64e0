/**
 * What a process is to the engine: a `run` function over resolved arguments, optionally with the forms that let
 * the engine run it without the interpreter: `elementwise` (one value per element; compiled into kernels over
 * typed arrays for callbacks over data cubes) and `reducer` (many values to one; streamed chunk by chunk in
 * reducer callbacks). The scalar `run` is the one definition of each process's semantics: kernels and
 * streaming reducers are checked against it by tests.
 */
import type { ProcessDescription } from './descriptions/types.ts';
import type { EngineLimits } from './graph/limits.ts';
import type { UserProcessResolver } from './graph/types.ts';
import type { MemoryBudget } from './memory-budget.ts';
import type { EngineServices } from './services.ts';

export type Args = Record<string, unknown>;

/** The kind of a value inside a data cube: a number, a boolean (0/1), or nodata only (a null literal). */
export type CellKind = 'number' | 'boolean' | 'nodata';

export interface ProcessContext {
  readonly limits: EngineLimits;
  readonly signal: AbortSignal | undefined;
  /** Path of the node being run, for messages. */
  readonly node: string;
  readonly services: EngineServices;
  readonly processes: ProcessRegistry;
  /** The run's memory budget, when it has one: processes that allocate by a user's numbers check it first. */
  readonly memory?: MemoryBudget;
}

export interface ElementwiseSpec {
  /** Parameters that carry one value per element; the others must be constants when compiled into a kernel. */
  readonly inputs: readonly string[];
  /**
   * A JavaScript expression for one element, over operands that are variable names or literals, where NaN is
   * nodata and booleans are 0/1. Undefined when the constants do not allow a fast form: the kernel then calls
   * `run` per element (same results, slower).
   */
  expression?(operands: Record<string, string>, constants: Args): string | undefined;
  /** The kind of the result for the kinds of the inputs; undefined when the kinds are not accepted. */
  resultKind(kinds: Record<string, CellKind>, constants: Args): CellKind | undefined;
}

/** Partial state of a reducer over many cells at once (one slot per cell). */
export interface ReducerState {
  readonly cells: number;
}

/**
 * A reducer that streams: `update` sees the values of one position along the reduced dimension for a run of
 * cells, in order of position; states of disjoint runs of positions can be merged; `finish` writes one value per
 * cell (NaN for nodata). Values are NaN for nodata, as in cube chunks.
 */
export interface StreamingReducer<S extends ReducerState = ReducerState> {
  init(cells: number): S;
  update(state: S, offset: number, values: ArrayLike<number>, position: number): void;
  merge?(into: S, other: S): void;
  finish(state: S, out: { [i: number]: number }, offset: number): void;
  readonly resultKind: CellKind;
}

export interface ReducerSpec {
  /**
   * The streaming form for these constant arguments (all but `data`) over values of `inputKind` whose labels
   * are `labels`, or undefined when the constants allow none.
   */
  streaming?(constants: Args, inputKind: CellKind, labels: readonly (string | number)[]): StreamingReducer | undefined;
  /**
   * The form over all of one cell's values at once (NaN for nodata), for reducers that need them all (`median`);
   * returns NaN for nodata.
   */
  gathered?(constants: Args, inputKind: CellKind): ((values: Float64Array) => number) | undefined;
}

export interface ProcessDefinition {
  readonly id: string;
  /**
   * Parameters whose schema bounds (`minimum`, `maximum`) describe the function's domain rather than a rule:
   * the description says values outside give NaN (`arccos`, `ln`, ...), so they are not refused.
   */
  readonly domainParameters?: readonly string[];
  run(args: Args, context: ProcessContext): unknown;
  readonly elementwise?: ElementwiseSpec;
  readonly reducer?: ReducerSpec;
}

export interface RegisteredProcess extends ProcessDefinition {
  /** The description served at `/processes`. */
  readonly description: ProcessDescription;
  /** The description arguments are checked against: the served one, with domain bounds lifted. */
  readonly checked: ProcessDescription;
}

export interface ProcessRegistry {
  get(id: string): RegisteredProcess | undefined;
  ids(): readonly string[];
  userProcesses?: UserProcessResolver;
}
