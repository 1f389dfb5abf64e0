/**
 * Processes that run a callback over a data cube: `apply` (each value; a compiled kernel when the callback is
 * element-wise, else interpreted per value), `reduce_dimension` (streaming reducer plan), `apply_dimension`
 * (each series along a dimension).
 */
import { DataCube, spatialAxes, withoutUnits, type CellType } from '../../cube/cube.ts';
import type { Dimension } from '../../cube/dimension.ts';
import { readRegion } from '../../cube/read.ts';
import { ApplyDimensionSource } from '../../cube/sources/apply-dimension.ts';
import { ConvolveSource, type Border } from '../../cube/sources/convolve.ts';
import { MapSource, type ChunkMap } from '../../cube/sources/map.ts';
import { ReduceSource } from '../../cube/sources/reduce.ts';
import { ProcessingError, invalidArgument } from '../../errors.ts';
import type { Callback } from '../../evaluate/callback.ts';
import { fromCell, kindOf, toCell } from '../../kernels/cells.ts';
import { compileKernel } from '../../kernels/compile.ts';
import { kernelProgram } from '../../kernels/program.ts';
import { reducerPlan, returnKind } from '../../kernels/reducer-plan.ts';
import type { Args, CellKind, ProcessContext, ProcessDefinition } from '../../process.ts';
import { LabeledArray, elementsOf, isArrayValue } from '../../values/labeled-array.ts';
import { axisOf, range } from './helpers.ts';

const cellType = (kind: CellKind): CellType => (kind === 'boolean' ? 'boolean' : 'number');

/** The function `apply` runs per chunk: the compiled kernel of the callback, or the callback per value. */
export function elementMap(
  callback: Callback,
  inputKinds: readonly CellKind[],
  parameterNames: readonly string[],
  constants: Record<string, unknown>,
  context: ProcessContext,
): { map: ChunkMap; kind: CellKind } {
  const inputs = Object.fromEntries(parameterNames.map((name, index) => [name, { index, kind: inputKinds[index]! }]));
  const program = kernelProgram(callback, { inputs, constants }, context.processes);
  if (program) {
    const kernel = compileKernel(program, context.processes, context);
    return { map: (chunks, out) => kernel(chunks, out, out.length), kind: program.resultKind };
  }
  const result = callback.graph.nodes.get(callback.graph.result)!;
  const kind =
    result.target.kind === 'predefined'
      ? returnKind(context.processes.get(result.target.id)?.description.returns.schema)
      : 'number';
  return {
    kind,
    map: async (chunks, out, signal) => {
      for (let i = 0; i < out.length; i++) {
        if ((i & 1023) === 0) signal?.throwIfAborted();
        const parameters: Record<string, unknown> = { ...constants };
        parameterNames.forEach((name, k) => (parameters[name] = fromCell(chunks[k]![i]!, inputKinds[k]!)));
        out[i] = toCell(await callback.call(parameters));
      }
    },
  };
}

function applyCube({ data, process, context }: Args, processContext: ProcessContext): DataCube {
  const cube = data as DataCube;
  const { map, kind } = elementMap(process as Callback, [cube.metadata.cellType], ['x'], { context }, processContext);
  return new DataCube(new MapSource([cube], { ...withoutUnits(cube.metadata), cellType: cellType(kind) }, map));
}

async function reduceDimension(
  { data, reducer, dimension, context }: Args,
  processContext: ProcessContext,
): Promise<unknown> {
  const cube = data as DataCube;
  const axis = axisOf(cube, dimension as string);
  const plan = reducerPlan(reducer as Callback, cube.metadata.cellType, context, processContext);
  const dimensions = cube.dimensions.filter((_, i) => i !== axis);
  const reduced = new DataCube(
    new ReduceSource(
      cube,
      axis,
      plan,
      {
        ...withoutUnits(cube.metadata),
        dimensions,
        cellType: cellType(plan.resultKind),
        chunkShape: cube.metadata.chunkShape.filter((_, i) => i !== axis),
      },
      null,
    ),
  );
  if (dimensions.length > 0) return reduced;
  // Reducing the last dimension leaves one value: the result is that value, not a cube without dimensions.
  const [value] = await reduced.source.readChunk([], processContext.signal);
  return fromCell(value!, plan.resultKind);
}

async function applyDimension(
  { data, process, dimension, target_dimension, context }: Args,
  processContext: ProcessContext,
): Promise<DataCube> {
  const cube = data as DataCube;
  const callback = process as Callback;
  const axis = axisOf(cube, dimension as string);
  const source = cube.dimensions[axis]!;
  const kind = cube.metadata.cellType;
  const run = async (values: ArrayLike<number>): Promise<readonly unknown[]> => {
    const series = new LabeledArray(
      source.labels,
      Array.from(values, (v) => fromCell(v, kind)),
    );
    const result = await callback.call({ data: series, context });
    if (!isArrayValue(result))
      throw invalidArgument('apply_dimension', 'process', 'the process must return an array for each series');
    return elementsOf(result);
  };
  if (cube.cells === 0) return cube;
  // The first series tells how many values each series becomes (every one must give as many).
  const probeStart = cube.shape.map(() => 0);
  const probeShape = cube.shape.map((n, i) => (i === axis ? n : 1));
  const probe = await run(await readRegion(cube, probeStart, probeShape, processContext.signal));
  const m = probe.length;
  if (m === 0) throw invalidArgument('apply_dimension', 'process', 'the process must return at least one value');
  const kinds = probe.map(kindOf);
  const outKind: CellKind =
    kinds.every((k) => k === 'boolean' || k === 'nodata') && kinds.includes('boolean') ? 'boolean' : 'number';
  const target = (target_dimension as string | null) ?? source.name;
  // Filling another existing dimension (the description's second case) is not supported: name a new one.
  if (target !== source.name && cube.dimension(target))
    throw invalidArgument(
      'apply_dimension',
      'target_dimension',
      `dimension '${target}' exists already; name a new one`,
    );
  const sameDimension = target === source.name;
  const dimension_: Dimension =
    sameDimension && m === source.labels.length
      ? source
      : sameDimension
        ? { name: source.name, type: source.type, labels: range(m) }
        : { name: target, type: 'other', labels: range(m) };
  const dimensions = cube.dimensions.map((d, i) => (i === axis ? dimension_ : d));
  const chunkShape = cube.metadata.chunkShape.map((c, i) => (i === axis ? m : c));
  return new DataCube(
    new ApplyDimensionSource(
      cube,
      axis,
      { ...withoutUnits(cube.metadata), dimensions, chunkShape, cellType: cellType(outKind) },
      async (values, out) => {
        const result = await run(values);
        if (result.length !== m)
          throw invalidArgument(
            'apply_dimension',
            'process',
            `the process returned ${result.length} values for one series and ${m} for another`,
          );
        for (let j = 0; j < m; j++) out[j] = toCell(result[j]);
      },
    ),
  );
}

function applyKernel({ data, kernel, factor, border, replace_invalid }: Args): DataCube {
  const cube = data as DataCube;
  const rows = kernel as number[][];
  const width = rows[0]?.length ?? 0;
  if (rows.length % 2 === 0 || width % 2 === 0 || rows.some((r) => r.length !== width))
    throw new ProcessingError(
      'KernelDimensionsUneven',
      'Each dimension of the kernel must have an uneven number of elements (and all rows the same).',
    );
  return new DataCube(
    new ConvolveSource(cube, spatialAxes(cube), rows, {
      factor: factor as number,
      border: border as Border,
      replaceInvalid: replace_invalid as number,
    }),
  );
}

export const applyProcesses: ProcessDefinition[] = [
  { id: 'apply_kernel', run: applyKernel },
  { id: 'apply', run: applyCube },
  { id: 'reduce_dimension', run: reduceDimension },
  { id: 'apply_dimension', run: applyDimension },
];
