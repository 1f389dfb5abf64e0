/** Chunk grid arithmetic over C-ordered arrays. */

export function product(shape: readonly number[]): number {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

/** Element strides of a C-ordered array of `shape`. */
export function stridesOf(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i]!;
  }
  return strides;
}

/** Chunks per dimension. */
export function chunkCounts(shape: readonly number[], chunkShape: readonly number[]): number[] {
  return shape.map((n, i) => Math.ceil(n / chunkShape[i]!));
}

/** Where chunk `index` starts and how large it is. */
export function chunkRegion(
  shape: readonly number[],
  chunkShape: readonly number[],
  index: readonly number[],
): { start: number[]; shape: number[] } {
  const start = index.map((c, i) => c * chunkShape[i]!);
  return { start, shape: start.map((s, i) => Math.max(0, Math.min(chunkShape[i]!, shape[i]! - s))) };
}

/** Advances an index in C order within `shape` (the last dimension fastest); false once it wraps past the end. */
export function advance(index: number[], shape: readonly number[]): boolean {
  for (let d = index.length - 1; d >= 0; d--) {
    if (++index[d]! < shape[d]!) return true;
    index[d] = 0;
  }
  return false;
}

/** Every chunk index of a grid, in C order. */
export function* chunkIndices(counts: readonly number[]): Generator<number[]> {
  if (counts.some((c) => c === 0)) return;
  const index = counts.map(() => 0);
  do yield [...index];
  while (advance(index, counts));
}

/**
 * Copies a block: `shape` elements from `src` (C-ordered with `srcShape`, starting at `srcStart`) into `dst`
 * (C-ordered with `dstShape`, starting at `dstStart`). The innermost dimension is copied as one run.
 */
export function copyBlock(
  src: ArrayLike<number> & { subarray(a: number, b: number): ArrayLike<number> },
  srcShape: readonly number[],
  srcStart: readonly number[],
  dst: { set(values: ArrayLike<number>, offset: number): void },
  dstShape: readonly number[],
  dstStart: readonly number[],
  shape: readonly number[],
): void {
  const rank = shape.length;
  if (rank === 0) {
    dst.set(src.subarray(0, 1), 0);
    return;
  }
  if (shape.some((s) => s === 0)) return;
  const srcStrides = stridesOf(srcShape);
  const dstStrides = stridesOf(dstShape);
  const run = shape[rank - 1]!;
  const outer = shape.slice(0, rank - 1);
  const index = outer.map(() => 0);
  for (;;) {
    let s = srcStart[rank - 1]!;
    let d = dstStart[rank - 1]!;
    for (let i = 0; i < rank - 1; i++) {
      s += (srcStart[i]! + index[i]!) * srcStrides[i]!;
      d += (dstStart[i]! + index[i]!) * dstStrides[i]!;
    }
    dst.set(src.subarray(s, s + run), d);
    if (!advance(index, outer)) return;
  }
}

/**
 * A chunk shape of about `targetCells` cells for a cube of `shape`: the last (fastest) dimensions whole first,
 * as the stores chunk, so that reads along them are contiguous.
 */
export function defaultChunkShape(shape: readonly number[], targetCells = 1 << 20): number[] {
  const chunk = shape.map(() => 1);
  let budget = targetCells;
  for (let i = shape.length - 1; i >= 0; i--) {
    const n = Math.max(1, shape[i]!);
    if (n <= budget) {
      chunk[i] = n;
      budget = Math.floor(budget / n);
    } else {
      chunk[i] = Math.max(1, budget);
      budget = 1;
    }
  }
  return chunk;
}
