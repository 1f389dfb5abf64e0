/**
 * Reduces a dimension of a cube through a reducer plan, streaming: an output chunk reads the parent chunks
 * along the reduced dimension one at a time and feeds each position's values to the plan's per-cell state, so a
 * long time axis costs one parent chunk of memory plus the state. With `groups` (aggregate_temporal*) the
 * dimension stays, each output label reducing the parent positions of its group (groups may overlap); without,
 * the dimension is dropped.
 */
import type { ReducerPlan } from '../../kernels/reducer-plan.ts';
import type { Label } from '../../values/labeled-array.ts';
import { newChunk, type ChunkArray, type CubeMetadata, type CubeSource, type DataCube } from '../cube.ts';
import { chunkRegion, product } from '../grid.ts';

export class ReduceSource implements CubeSource {
  readonly metadata: CubeMetadata;
  private readonly parent: DataCube;
  private readonly axis: number;
  private readonly plan: ReducerPlan;
  /** Parent indices of each output label (ascending), or null: one group of every index, dimension dropped. */
  private readonly groups: readonly (readonly number[])[] | null;

  constructor(
    parent: DataCube,
    axis: number,
    plan: ReducerPlan,
    metadata: CubeMetadata,
    groups: readonly (readonly number[])[] | null,
  ) {
    this.parent = parent;
    this.axis = axis;
    this.plan = plan;
    this.metadata = metadata;
    this.groups = groups;
  }

  async readChunk(index: readonly number[], signal?: AbortSignal): Promise<ChunkArray> {
    const { axis, parent, plan, groups } = this;
    const outShape = this.metadata.dimensions.map((d) => d.labels.length);
    const region = chunkRegion(outShape, this.metadata.chunkShape, index);
    const out = newChunk(this.metadata.dtype, product(region.shape));
    const parentShape = parent.shape;
    const parentChunk = parent.metadata.chunkShape;
    const labels = parent.dimensions[axis]!.labels;
    // Output chunk index and region without the reduced axis, as the parent sees them.
    const otherIndex = groups ? [...index.slice(0, axis), ...index.slice(axis + 1)] : [...index];
    const otherShape = groups ? [...region.shape.slice(0, axis), ...region.shape.slice(axis + 1)] : region.shape;
    const pre = product(otherShape.slice(0, axis));
    const post = product(otherShape.slice(axis));
    const cells = pre * post;
    const groupList = groups
      ? groups.slice(region.start[axis]!, region.start[axis]! + region.shape[axis]!)
      : [Array.from({ length: parentShape[axis]! }, (_, i) => i)];
    const states = groupList.map((members) => plan.init(cells, members.map((i) => labels[i]!) as Label[]));
    // Parent index -> (group slot, position in group) for every group of this chunk.
    const feeds = new Map<number, [number, number][]>();
    groupList.forEach((members, slot) =>
      members.forEach((parentIndex, position) => {
        let list = feeds.get(parentIndex);
        if (!list) feeds.set(parentIndex, (list = []));
        list.push([slot, position]);
      }),
    );
    const needed = [...new Set([...feeds.keys()].map((i) => Math.floor(i / parentChunk[axis]!)))].sort((a, b) => a - b);
    for (const k of needed) {
      signal?.throwIfAborted();
      const parentIndex = [...otherIndex.slice(0, axis), k, ...otherIndex.slice(axis)];
      const chunk = await parent.source.readChunk(parentIndex, signal);
      const n = chunkRegion(parentShape, parentChunk, parentIndex).shape[axis]!;
      for (let j = 0; j < n; j++) {
        const targets = feeds.get(k * parentChunk[axis]! + j);
        if (!targets) continue;
        for (let p = 0; p < pre; p++) {
          const values = chunk.subarray((p * n + j) * post, (p * n + j + 1) * post);
          for (const [slot, position] of targets) plan.update(states[slot], p * post, values, position);
        }
      }
    }
    const result = new Float64Array(cells);
    for (let slot = 0; slot < groupList.length; slot++) {
      await plan.finish(states[slot], result);
      if (!groups) out.set(result);
      else {
        const width = groupList.length;
        for (let p = 0; p < pre; p++) out.set(result.subarray(p * post, (p + 1) * post), (p * width + slot) * post);
      }
    }
    return out;
  }
}
