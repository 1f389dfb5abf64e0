/**
 * Runs one test vector through the real engine: a one-node graph calling the process with the vector's
 * arguments (decoded by `codec.ts`), evaluated by `runProcessGraph` with the registry under test. A `throws`
 * vector passes when the engine raises a ProcessingError with that code (any code for `true`); a vector with
 * both `returns` and `throws` passes either way, as the README says.
 */
import { ProcessingError } from '../../core/processing/errors.ts';
import { runProcessGraph } from '../../core/processing/engine.ts';
import type { ProcessRegistry } from '../../core/processing/process.ts';
import { decode } from './codec.ts';
import { compare } from './compare.ts';
import type { Vector } from './load.ts';

/** Undefined when the vector passes, else why not. */
export async function runVector(
  process: string,
  vector: Vector,
  registry: ProcessRegistry,
): Promise<string | undefined> {
  const args = decode(vector.arguments) as Record<string, unknown>;
  const graph = { [process]: { process_id: process, arguments: args, result: true } };
  let result: unknown;
  try {
    result = await runProcessGraph(graph, { registry });
  } catch (err) {
    if (!(err instanceof ProcessingError))
      return `raised ${String(err)}${err instanceof Error ? `\n${err.stack}` : ''}`;
    if (vector.throws === true || err.code === vector.throws) return undefined;
    return vector.throws
      ? `expected ${vector.throws}, raised ${err.code}: ${err.message}`
      : `raised ${err.code}: ${err.message}`;
  }
  if (!('returns' in vector)) return `expected ${String(vector.throws)}, returned a value`;
  return compare(vector.returns, result, vector.delta ?? 1e-10);
}
