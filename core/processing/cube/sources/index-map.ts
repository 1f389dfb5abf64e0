/**
 * A cube whose cells are cells of another cube: every output dimension either follows a parent dimension
 * through a list of parent indices (a filter, a reorder, a resampling by nearest neighbour; -1 for a position
 * with no parent cell, which becomes nodata) or is new and broadcast (`add_dimension`, a mask missing a
 * dimension). Parent dimensions that no output dimension follows must have one label (`drop_dimension`). Each
 * output chunk reads only the parent chunks it needs, one at a time.
 */
import { newChunk, type ChunkArray, type CubeMetadata, type CubeSource, type DataCube } from '../cube.ts';
import { advance, chunkRegion, product, stridesOf } from '../grid.ts';

export interface AxisMap {
  /** The parent dimension this output dimension follows, or null for a new, broadcast one. */
  parent: number | null;
  /** Parent index of each output position (-1: none), or null for the identity. */
  indices: Int32Array | null;
}

export class IndexMapSource implements CubeSource {
  readonly metadata: CubeMetadata;
  private readonly parent: DataCube;
  private readonly axes: readonly AxisMap[];

  constructor(parent: DataCube, metadata: CubeMetadata, axes: readonly AxisMap[]) {
    if (axes.length !== metadata.dimensions.length) throw new Error('one axis map per output dimension');
    const followed = new Set(axes.map((a) => a.parent).filter((p) => p !== null));
    parent.shape.forEach((n, i) => {
      if (!followed.has(i) && n !== 1) throw new Error(`parent dimension ${i} is dropped but has ${n} labels`);
    });
    this.parent = parent;
    this.metadata = metadata;
    this.axes = axes;
  }

  async readChunk(index: readonly number[], signal?: AbortSignal): Promise<ChunkArray> {
    const shape = this.metadata.dimensions.map((d) => d.labels.length);
    const region = chunkRegion(shape, this.metadata.chunkShape, index);
    const out = newChunk(this.metadata.dtype, product(region.shape));
    out.fill(NaN);
    if (out.length === 0) return out;
    const parentShape = this.parent.shape;
    const parentChunk = this.parent.metadata.chunkShape;
    const rank = parentShape.length;
    const outStrides = stridesOf(region.shape);
    // Per parent dimension: for each parent chunk touched, the output positions (along the following output
    // dimension) that read it, with their offset inside that chunk.
    const perAxis: Map<number, { positions: number[]; offsets: number[] }>[] = [];
    const followerOf = new Array<number>(rank).fill(-1);
    this.axes.forEach((axis, j) => {
      if (axis.parent !== null) followerOf[axis.parent] = j;
    });
    for (let p = 0; p < rank; p++) {
      const byChunk = new Map<number, { positions: number[]; offsets: number[] }>();
      const j = followerOf[p]!;
      if (j < 0) byChunk.set(0, { positions: [0], offsets: [0] });
      else {
        const indices = this.axes[j]!.indices;
        for (let k = 0; k < region.shape[j]!; k++) {
          const outPos = region.start[j]! + k;
          const parentIndex = indices ? indices[outPos]! : outPos;
          if (parentIndex < 0) continue;
          const c = Math.floor(parentIndex / parentChunk[p]!);
          let entry = byChunk.get(c);
          if (!entry) byChunk.set(c, (entry = { positions: [], offsets: [] }));
          entry.positions.push(k);
          entry.offsets.push(parentIndex - c * parentChunk[p]!);
        }
      }
      if (byChunk.size === 0) return out;
      perAxis.push(byChunk);
    }
    // Broadcast output dimensions: every position reads the same parent cell.
    const broadcast = this.axes.flatMap((axis, j) => (axis.parent === null ? [j] : []));
    const chunkLists = perAxis.map((m) => [...m.keys()]);
    const listLengths = chunkLists.map((l) => l.length);
    const pick = chunkLists.map(() => 0);
    for (;;) {
      signal?.throwIfAborted();
      const chunkIndex = pick.map((k, p) => chunkLists[p]![k]!);
      const chunk = await this.parent.source.readChunk(chunkIndex, signal);
      const chunkShape = chunkRegion(parentShape, parentChunk, chunkIndex).shape;
      const chunkStrides = stridesOf(chunkShape);
      const lists = chunkIndex.map((c, p) => perAxis[p]!.get(c)!);
      // Odometer over the output positions that this chunk feeds.
      const loops: { outStride: number; inStride: number; positions: number[]; offsets: number[] }[] = [];
      for (let p = 0; p < rank; p++) {
        const j = followerOf[p]!;
        if (j < 0) continue;
        loops.push({ outStride: outStrides[j]!, inStride: chunkStrides[p]!, ...lists[p]! });
      }
      for (const j of broadcast) {
        const positions = Array.from({ length: region.shape[j]! }, (_, k) => k);
        loops.push({ outStride: outStrides[j]!, inStride: 0, positions, offsets: positions.map(() => 0) });
      }
      copyOdometer(chunk, out, loops);
      if (!advance(pick, listLengths)) break;
    }
    return out;
  }
}

function copyOdometer(
  src: ChunkArray,
  dst: ChunkArray,
  loops: { outStride: number; inStride: number; positions: number[]; offsets: number[] }[],
): void {
  if (loops.length === 0) {
    dst[0] = src[0]!;
    return;
  }
  const depth = loops.length;
  const counter = new Array<number>(depth - 1).fill(0);
  const outer = loops.slice(0, -1).map((l) => l.positions.length);
  const inner = loops[depth - 1]!;
  for (;;) {
    let o = 0;
    let s = 0;
    for (let d = 0; d < depth - 1; d++) {
      const loop = loops[d]!;
      o += loop.positions[counter[d]!]! * loop.outStride;
      s += loop.offsets[counter[d]!]! * loop.inStride;
    }
    for (let k = 0; k < inner.positions.length; k++)
      dst[o + inner.positions[k]! * inner.outStride] = src[s + inner.offsets[k]! * inner.inStride]!;
    if (!advance(counter, outer)) return;
  }
}
