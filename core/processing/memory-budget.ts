/**
 * The memory one run may hold, counted across its whole graph: every node's arrays (a plain JS array costs about
 * 8 bytes an element, a pointer or an unboxed number) while the graph that made them holds them, and the cubes
 * it materializes. Past the budget the run is refused with a 400 naming the limit, before the heap of the thread
 * it runs in (V8's own limit, the backstop) is exhausted. Without a budget (batch jobs, tests) nothing is counted.
 */
import { ProcessingError } from './errors.ts';
import { elementsOf, isArrayValue } from './values/labeled-array.ts';

/** What an element of a plain JS array costs: a tagged pointer or an unboxed double. */
export const BYTES_PER_ARRAY_ELEMENT = 8;

export class MemoryBudget {
  readonly maxBytes: number;
  /** The configuration key that sets the budget, named in the refusal. */
  readonly key: string;
  private used = 0;

  constructor(maxBytes: number, key: string) {
    this.maxBytes = maxBytes;
    this.key = key;
  }

  get usedBytes(): number {
    return this.used;
  }

  /** Refuses, before anything is allocated, `bytes` more for `what` when they would not fit. */
  check(bytes: number, what: string): void {
    if (!(this.used + bytes <= this.maxBytes))
      throw new ProcessingError(
        'ProcessGraphComplexity',
        `${what} would take about ${bytes} bytes, bringing the run's memory to ${this.used + bytes} bytes, more than ` +
          `the ${this.maxBytes} bytes a run may hold (${this.key}); use smaller arrays or extents, or a batch job (POST /jobs).`,
      );
  }

  /** Counts `bytes` for `what` (refused as `check` refuses); give them back with `release`. */
  charge(bytes: number, what: string): void {
    this.check(bytes, what);
    this.used += bytes;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

/** The bytes an engine value holds in its elements: plain and labeled arrays; 0 for anything else. */
export const arrayBytes = (value: unknown): number =>
  isArrayValue(value) ? elementsOf(value).length * BYTES_PER_ARRAY_ELEMENT : 0;
