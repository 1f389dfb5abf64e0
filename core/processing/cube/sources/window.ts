/**
 * Resampling onto another grid of the same CRS by a reducer of the source pixels whose centres fall in each
 * target pixel (`average`, `min`, `max`, `med`, `sum`, ...), and onto a grid of another CRS by nearest neighbour
 * (`near`): each target pixel centre is transformed into the source CRS and reads the source pixel there.
 */
import { readRegion } from '../read.ts';
import { newChunk, type ChunkArray, type CubeMetadata, type CubeSource, type DataCube } from '../cube.ts';
import { advance, chunkRegion, product, stridesOf } from '../grid.ts';

/** A reducer of the valid values of one target pixel; NaN when there are none. */
export type WindowReducer = (values: number[]) => number;

export class WindowSource implements CubeSource {
  readonly metadata: CubeMetadata;
  private readonly parent: DataCube;
  private readonly axes: { x: number; y: number };
  /** Per target index along x and y: the half-open range of source indices it covers. */
  private readonly ranges: { x: [number, number][]; y: [number, number][] };
  private readonly reduce: WindowReducer;

  constructor(
    parent: DataCube,
    metadata: CubeMetadata,
    axes: { x: number; y: number },
    ranges: { x: [number, number][]; y: [number, number][] },
    reduce: WindowReducer,
  ) {
    this.parent = parent;
    this.metadata = metadata;
    this.axes = axes;
    this.ranges = ranges;
    this.reduce = reduce;
  }

  async readChunk(index: readonly number[], signal?: AbortSignal): Promise<ChunkArray> {
    const shape = this.metadata.dimensions.map((d) => d.labels.length);
    const region = chunkRegion(shape, this.metadata.chunkShape, index);
    const out = newChunk(this.metadata.dtype, product(region.shape)).fill(NaN);
    const { x, y } = this.axes;
    const span = (list: [number, number][], start: number, n: number) => {
      const part = list.slice(start, start + n).filter(([a, b]) => b > a);
      return part.length === 0 ? undefined : [Math.min(...part.map((p) => p[0])), Math.max(...part.map((p) => p[1]))];
    };
    const sy = span(this.ranges.y, region.start[y]!, region.shape[y]!);
    const sx = span(this.ranges.x, region.start[x]!, region.shape[x]!);
    if (!sy || !sx) return out;
    const start = region.start.map((s, i) => (i === y ? sy[0]! : i === x ? sx[0]! : s));
    const size = region.shape.map((s, i) => (i === y ? sy[1]! - sy[0]! : i === x ? sx[1]! - sx[0]! : s));
    const input = await readRegion(this.parent, start, size, signal);
    const strides = stridesOf(size);
    const position = region.shape.map(() => 0);
    const values: number[] = [];
    for (let i = 0; i < out.length; i++) {
      let base = 0;
      for (let d = 0; d < position.length; d++) if (d !== x && d !== y) base += position[d]! * strides[d]!;
      const [ya, yb] = this.ranges.y[region.start[y]! + position[y]!]!;
      const [xa, xb] = this.ranges.x[region.start[x]! + position[x]!]!;
      values.length = 0;
      for (let py = ya; py < yb; py++)
        for (let px = xa; px < xb; px++) {
          const v = input[base + (py - sy[0]!) * strides[y]! + (px - sx[0]!) * strides[x]!]!;
          if (Number.isFinite(v)) values.push(v);
        }
      out[i] = values.length === 0 ? NaN : this.reduce(values);
      advance(position, region.shape);
    }
    return out;
  }
}

export class WarpSource implements CubeSource {
  readonly metadata: CubeMetadata;
  private readonly parent: DataCube;
  private readonly axes: { x: number; y: number };
  /** Source (row, col) of a target (row, col), or undefined outside the source. */
  private readonly locate: (row: number, col: number) => [number, number] | undefined;

  constructor(
    parent: DataCube,
    metadata: CubeMetadata,
    axes: { x: number; y: number },
    locate: (row: number, col: number) => [number, number] | undefined,
  ) {
    this.parent = parent;
    this.metadata = metadata;
    this.axes = axes;
    this.locate = locate;
  }

  async readChunk(index: readonly number[], signal?: AbortSignal): Promise<ChunkArray> {
    const shape = this.metadata.dimensions.map((d) => d.labels.length);
    const region = chunkRegion(shape, this.metadata.chunkShape, index);
    const out = newChunk(this.metadata.dtype, product(region.shape)).fill(NaN);
    const { x, y } = this.axes;
    const located: ([number, number] | undefined)[] = [];
    let [r0, r1, c0, c1] = [Infinity, -Infinity, Infinity, -Infinity];
    for (let r = 0; r < region.shape[y]!; r++)
      for (let c = 0; c < region.shape[x]!; c++) {
        const at = this.locate(region.start[y]! + r, region.start[x]! + c);
        located.push(at);
        if (at) {
          r0 = Math.min(r0, at[0]);
          r1 = Math.max(r1, at[0]);
          c0 = Math.min(c0, at[1]);
          c1 = Math.max(c1, at[1]);
        }
      }
    if (r0 > r1) return out;
    const start = region.start.map((s, i) => (i === y ? r0 : i === x ? c0 : s));
    const size = region.shape.map((s, i) => (i === y ? r1 - r0 + 1 : i === x ? c1 - c0 + 1 : s));
    const input = await readRegion(this.parent, start, size, signal);
    const strides = stridesOf(size);
    const position = region.shape.map(() => 0);
    for (let i = 0; i < out.length; i++) {
      const at = located[position[y]! * region.shape[x]! + position[x]!];
      if (at) {
        let offset = (at[0] - r0) * strides[y]! + (at[1] - c0) * strides[x]!;
        for (let d = 0; d < position.length; d++) if (d !== x && d !== y) offset += position[d]! * strides[d]!;
        out[i] = input[offset]!;
      }
      advance(position, region.shape);
    }
    return out;
  }
}
