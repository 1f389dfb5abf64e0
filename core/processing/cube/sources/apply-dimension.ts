/**
 * `apply_dimension`: every cell's whole series along one dimension goes through a function that returns a new
 * series of `length` values, written along the target dimension in its place. An output chunk gathers the
 * series of its cells from the parent chunks along the dimension (memory: the chunk's cells times the
 * dimension's length).
 */
import { newChunk, type ChunkArray, type CubeMetadata, type CubeSource, type DataCube } from '../cube.ts';
import { chunkRegion, product } from '../grid.ts';

export type SeriesFunction = (values: Float64Array, out: Float64Array, signal?: AbortSignal) => Promise<void>;

export class ApplyDimensionSource implements CubeSource {
  readonly metadata: CubeMetadata;
  private readonly parent: DataCube;
  private readonly axis: number;
  private readonly series: SeriesFunction;

  constructor(parent: DataCube, axis: number, metadata: CubeMetadata, series: SeriesFunction) {
    this.parent = parent;
    this.axis = axis;
    this.metadata = metadata;
    this.series = series;
  }

  async readChunk(index: readonly number[], signal?: AbortSignal): Promise<ChunkArray> {
    const { axis, parent } = this;
    const outShape = this.metadata.dimensions.map((d) => d.labels.length);
    const region = chunkRegion(outShape, this.metadata.chunkShape, index);
    const out = newChunk(this.metadata.dtype, product(region.shape));
    const m = outShape[axis]!;
    const n = parent.shape[axis]!;
    const pre = product(region.shape.slice(0, axis));
    const post = product(region.shape.slice(axis + 1));
    const cells = pre * post;
    const gathered = new Float64Array(cells * n).fill(NaN);
    const parentChunk = parent.metadata.chunkShape;
    for (let k = 0; k * parentChunk[axis]! < n; k++) {
      signal?.throwIfAborted();
      const parentIndex = index.map((c, i) => (i === axis ? k : c));
      const chunk = await parent.source.readChunk(parentIndex, signal);
      const length = chunkRegion(parent.shape, parentChunk, parentIndex).shape[axis]!;
      for (let p = 0; p < pre; p++)
        for (let j = 0; j < length; j++)
          for (let q = 0; q < post; q++)
            gathered[(p * post + q) * n + k * parentChunk[axis]! + j] = chunk[(p * length + j) * post + q]!;
    }
    const result = new Float64Array(m);
    for (let c = 0; c < cells; c++) {
      await this.series(gathered.subarray(c * n, (c + 1) * n), result, signal);
      const p = Math.floor(c / post);
      const q = c % post;
      for (let j = 0; j < m; j++) out[(p * m + j) * post + q] = result[j]!;
    }
    return out;
  }
}
