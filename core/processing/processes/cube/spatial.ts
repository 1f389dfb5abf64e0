/**
 * `aggregate_spatial`: zonal statistics of a raster cube over geometries, into a vector cube (the geometries ×
 * the cube's other dimensions). Pixels count by their centre (openEO's rule) or, with Stratus's parameter
 * `weighting: "coverage"`, by the exact fraction of each pixel inside the polygon; the sparse table of pixels is
 * computed once per call and reused for every chunk.
 */
import type { DataCube } from '../../cube/cube.ts';
import type { Dimension } from '../../cube/dimension.ts';
import { memoryCube } from '../../cube/memory.ts';
import { ProcessingError, invalidArgument } from '../../errors.ts';
import type { Callback } from '../../evaluate/callback.ts';
import { reducerPlan } from '../../kernels/reducer-plan.ts';
import type { Args, ProcessContext, ProcessDefinition } from '../../process.ts';
import type { Label } from '../../values/labeled-array.ts';
import { processPool } from '../../../workers/pool.ts';
import { zonalAggregate, type ZonalReducer } from '../../zonal/aggregate.ts';
import { ZONAL_CHUNK } from '../../zonal/chunk-task.ts';
import { gridOf } from '../../zonal/grid.ts';
import type { Weighting } from '../../zonal/rasterize.ts';
import { zonalTable } from '../../zonal/table.ts';
import { WEIGHTED_REDUCERS, weightedReducer, type WeightedKind } from '../../zonal/weighted.ts';
import { geometriesOf } from './masks.ts';

/**
 * The weighted reducer a callback stands for when it is one mean, sum, count, min or max of `data`, or undefined.
 * Pixel centres weigh 1, so these run the same fast loop in both weightings.
 */
function weightedOf(callback: Callback): ZonalReducer | undefined {
  const { graph } = callback;
  const node = graph.nodes.get(graph.result)!;
  const data = node.arguments.data;
  const ignore = node.arguments.ignore_nodata;
  const supported =
    graph.nodes.size === 1 &&
    node.target.kind === 'predefined' &&
    (WEIGHTED_REDUCERS as readonly string[]).includes(node.processId) &&
    data?.kind === 'parameter' &&
    data.name === 'data' &&
    (ignore === undefined || ignore.kind === 'literal') &&
    (node.processId !== 'count' || node.arguments.condition === undefined);
  if (!supported) return undefined;
  const ignoreNodata = ignore?.kind === 'literal' ? ignore.value !== false : true;
  return { kind: 'weighted', reducer: weightedReducer(node.processId as WeightedKind, ignoreNodata) };
}

/** Labels of the geometry dimension: the features' ids when every feature has a distinct one, else 0, 1, ... */
export function geometryLabels(features: readonly { id?: string | number }[]): Label[] {
  const ids = features.map((f) => f.id);
  return ids.every((id) => id !== undefined) && new Set(ids).size === ids.length
    ? (ids as Label[])
    : features.map((_, i) => i);
}

async function aggregateSpatial(
  { data, geometries, reducer, target_dimension, context, weighting }: Args,
  processContext: ProcessContext,
): Promise<DataCube> {
  const cube = data as DataCube;
  const { features, crs } = geometriesOf(geometries, 'aggregate_spatial', 'geometries');
  const target = target_dimension as string | null;
  if (target !== null && cube.dimension(target))
    throw new ProcessingError(
      'TargetDimensionExists',
      `A dimension with the specified target dimension name '${target}' exists already.`,
    );
  const grid = gridOf(cube);
  const mode = (weighting ?? 'centre') as Weighting;
  const simple = weightedOf(reducer as Callback);
  if (mode === 'coverage' && !simple)
    throw invalidArgument(
      'aggregate_spatial',
      'reducer',
      `weighting "coverage" supports a reducer of one process: ${WEIGHTED_REDUCERS.join(', ')} (of the values, with literal ignore_nodata)`,
    );
  const zonal: ZonalReducer = simple ?? {
    kind: 'plan',
    plan: reducerPlan(reducer as Callback, cube.metadata.cellType, context, processContext),
  };
  // The pool's workers boot while this thread computes the table.
  if (simple) void processPool().warm(ZONAL_CHUNK);
  const table = zonalTable(features, crs, grid, mode);
  const result = await zonalAggregate(cube, table, zonal, {
    counts: target !== null,
    ...(processContext.signal ? { signal: processContext.signal } : {}),
  });
  const others = cube.dimensions.filter((_, i) => i !== grid.xAxis && i !== grid.yAxis);
  const geometry: Dimension = { name: 'geometry', type: 'geometry', labels: geometryLabels(features), crs };
  const G = features.length;
  let dimensions: Dimension[] = [geometry, ...others];
  let values = result.values;
  if (target !== null) {
    // value, total_count, valid_count as a last dimension.
    dimensions = [...dimensions, { name: target, type: 'other', labels: ['value', 'total_count', 'valid_count'] }];
    values = new Float64Array(G * result.others * 3);
    for (let i = 0; i < G * result.others; i++) {
      values[i * 3] = result.values[i]!;
      values[i * 3 + 1] = result.totals[i]!;
      values[i * 3 + 2] = result.valid[i]!;
    }
  }
  const kind = zonal.kind === 'plan' ? zonal.plan.resultKind : 'number';
  return memoryCube({
    dimensions,
    data: values,
    cellType: kind === 'boolean' && target === null ? 'boolean' : 'number',
    geometries: features,
  });
}

export const spatialProcesses: ProcessDefinition[] = [{ id: 'aggregate_spatial', run: aggregateSpatial }];
