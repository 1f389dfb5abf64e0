/**
 * Turns a kernel program into one JavaScript function that loops once over the chunk and computes every step of
 * the callback per element in local variables (no intermediate arrays). A step whose process has no expression
 * for its constants calls the process's own `run` per element through the cell conversions. The function is pure
 * over its typed arrays, so a worker thread can compile the same program and run it on transferred chunks.
 */
import { ProcessingError } from '../errors.ts';
import type { ProcessContext, ProcessRegistry } from '../process.ts';
import { floorMod, linearScale, literal, roundHalfEven } from './scalar.ts';
import { fromCell, toCell } from './cells.ts';
import { operandKind, type KernelProgram, type Operand } from './program.ts';

/** Helpers that kernel expressions may call as `h.<name>`. */
export const KERNEL_HELPERS = { roundHalfEven, floorMod, linearScale };

export type Kernel = (inputs: readonly ArrayLike<number>[], out: { [i: number]: number }, length: number) => void;

export function compileKernel(program: KernelProgram, registry: ProcessRegistry, context: ProcessContext): Kernel {
  const fallbacks: ((...values: number[]) => number)[] = [];
  const code = (operand: Operand) =>
    operand.kind === 'input'
      ? `x${operand.index}`
      : operand.kind === 'node'
        ? `t${operand.index}`
        : literal(operand.value);
  const lines: string[] = [];
  program.steps.forEach((step, index) => {
    const process = registry.get(step.process)!;
    const spec = process.elementwise!;
    const names = Object.keys(step.operands);
    const operands = Object.fromEntries(names.map((name) => [name, code(step.operands[name]!)]));
    const expression = spec.expression?.(operands, step.constants);
    if (expression !== undefined) {
      lines.push(`const t${index} = ${expression};`);
      return;
    }
    const kinds = names.map((name) => operandKind(step.operands[name]!, program.inputs, program.steps));
    fallbacks.push((...values: number[]) => {
      const args = { ...step.constants };
      names.forEach((name, i) => (args[name] = fromCell(values[i]!, kinds[i]!)));
      const result = process.run(args, context);
      if (result instanceof Promise)
        throw new ProcessingError('ProcessParameterInvalid', `${step.process} is not element-wise`);
      return toCell(result);
    });
    lines.push(`const t${index} = f[${fallbacks.length - 1}](${names.map((n) => operands[n]).join(', ')});`);
  });
  const reads = program.inputs.map((_, i) => `const x${i} = in${i}[i];`).join(' ');
  const body = [
    `const [${program.inputs.map((_, i) => `in${i}`).join(', ')}] = inputs;`,
    'for (let i = 0; i < length; i++) {',
    reads,
    ...lines,
    `out[i] = ${code(program.result)};`,
    '}',
  ].join('\n');
  // Generated from the program only: operand names, numeric literals and the expressions of our own processes.
  const factory = new Function('h', 'f', `return function kernel(inputs, out, length) {\n${body}\n};`) as (
    h: typeof KERNEL_HELPERS,
    f: typeof fallbacks,
  ) => Kernel;
  return factory(KERNEL_HELPERS, fallbacks);
}
