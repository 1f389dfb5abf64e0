/**
 * `apply_kernel`: a 2D weighted window over the x and y dimensions. An output chunk reads the parent region it
 * needs (the chunk grown by the kernel's radius, and wherever the border mode reflects or wraps to), replaces
 * invalid values (nodata, NaN, infinities), and sums the weighted window per cell.
 */
import { readRegion } from '../read.ts';
import { newChunk, withoutUnits, type ChunkArray, type CubeMetadata, type CubeSource, type DataCube } from '../cube.ts';
import { advance, chunkRegion, product, stridesOf } from '../grid.ts';

export type Border = number | 'replicate' | 'reflect' | 'reflect_pixel' | 'wrap';

/** The parent index a position outside [0, n) reads under a border mode, or -1 for a constant border. */
export function borderIndex(p: number, n: number, border: Border): number {
  if (p >= 0 && p < n) return p;
  if (typeof border === 'number') return -1;
  switch (border) {
    case 'replicate':
      return p < 0 ? 0 : n - 1;
    case 'reflect': {
      // fedcba|abcdefgh|hgfedc
      const period = 2 * n;
      const q = ((p % period) + period) % period;
      return q < n ? q : period - 1 - q;
    }
    case 'reflect_pixel': {
      // gfedcb|abcdefgh|gfedcb
      if (n === 1) return 0;
      const period = 2 * (n - 1);
      const q = ((p % period) + period) % period;
      return q < n ? q : period - q;
    }
    case 'wrap':
      return ((p % n) + n) % n;
  }
}

export class ConvolveSource implements CubeSource {
  readonly metadata: CubeMetadata;
  private readonly parent: DataCube;
  private readonly axes: { x: number; y: number };
  private readonly kernel: number[][];
  private readonly factor: number;
  private readonly border: Border;
  private readonly replaceInvalid: number;

  constructor(
    parent: DataCube,
    axes: { x: number; y: number },
    kernel: number[][],
    options: { factor: number; border: Border; replaceInvalid: number },
  ) {
    this.parent = parent;
    this.axes = axes;
    this.kernel = kernel;
    this.factor = options.factor;
    this.border = options.border;
    this.replaceInvalid = options.replaceInvalid;
    this.metadata = { ...withoutUnits(parent.metadata), cellType: 'number' };
  }

  async readChunk(index: readonly number[], signal?: AbortSignal): Promise<ChunkArray> {
    const shape = this.parent.shape;
    const region = chunkRegion(shape, this.metadata.chunkShape, index);
    const out = newChunk(this.metadata.dtype, product(region.shape));
    const { x, y } = this.axes;
    const ry = (this.kernel.length - 1) / 2;
    const rx = (this.kernel[0]!.length - 1) / 2;
    // Parent indices each window position reads, per axis.
    const mapped = (axis: number, radius: number) =>
      Array.from({ length: region.shape[axis]! + 2 * radius }, (_, k) =>
        borderIndex(region.start[axis]! - radius + k, shape[axis]!, this.border),
      );
    const my = mapped(y, ry);
    const mx = mapped(x, rx);
    const span = (m: number[]) => {
      const valid = m.filter((v) => v >= 0);
      return valid.length === 0 ? [0, 0] : [Math.min(...valid), Math.max(...valid) + 1];
    };
    const [y0, y1] = span(my) as [number, number];
    const [x0, x1] = span(mx) as [number, number];
    const start = region.start.map((s, i) => (i === y ? y0 : i === x ? x0 : s));
    const size = region.shape.map((s, i) => (i === y ? y1 - y0 : i === x ? x1 - x0 : s));
    const input = await readRegion(this.parent, start, size, signal);
    const inStrides = stridesOf(size);
    const constant = typeof this.border === 'number' ? this.border : 0;
    const position = region.shape.map(() => 0);
    for (let i = 0; i < out.length; i++) {
      let base = 0;
      for (let d = 0; d < position.length; d++) if (d !== x && d !== y) base += position[d]! * inStrides[d]!;
      let sum = 0;
      for (let ky = 0; ky < this.kernel.length; ky++) {
        const py = my[position[y]! + ky]!;
        const row = this.kernel[ky]!;
        for (let kx = 0; kx < row.length; kx++) {
          const px = mx[position[x]! + kx]!;
          let v: number;
          if (py < 0 || px < 0) v = constant;
          else {
            v = input[base + (py - y0) * inStrides[y]! + (px - x0) * inStrides[x]!]!;
            if (!Number.isFinite(v)) v = this.replaceInvalid;
          }
          sum += row[kx]! * v;
        }
      }
      out[i] = sum * this.factor;
      advance(position, region.shape);
    }
    return out;
  }
}
