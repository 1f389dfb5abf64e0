/**
 * A cube held in memory: test data, small results, vector cubes, `create_data_cube`. The values are laid out
 * chunk by chunk when the cube is made (as a store holds them), so that reading a chunk is one contiguous copy,
 * each in shared memory, so that worker threads read lent chunks without a copy (zonal statistics).
 */
import { DataCube, newChunk, type ChunkArray, type CubeMetadata, type CubeSource } from './cube.ts';
import type { Dimension } from './dimension.ts';
import { chunkCounts, chunkIndices, chunkRegion, copyBlock, defaultChunkShape, product, stridesOf } from './grid.ts';

export class MemorySource implements CubeSource {
  readonly metadata: CubeMetadata;
  private readonly chunks: ChunkArray[] = [];
  private readonly chunkStrides: number[];

  constructor(metadata: CubeMetadata, data: ChunkArray) {
    const shape = metadata.dimensions.map((d) => d.labels.length);
    const cells = shape.length === 0 ? 0 : product(shape);
    if (data.length !== cells) throw new Error(`a cube of ${cells} cells cannot hold ${data.length} values`);
    this.metadata = metadata;
    const counts = chunkCounts(shape, metadata.chunkShape);
    this.chunkStrides = stridesOf(counts);
    if (cells === 0) return;
    for (const index of chunkIndices(counts)) {
      const region = chunkRegion(shape, metadata.chunkShape, index);
      const chunk = newChunk(metadata.dtype, product(region.shape), true);
      copyBlock(
        data,
        shape,
        region.start,
        chunk,
        region.shape,
        region.shape.map(() => 0),
        region.shape,
      );
      this.chunks.push(chunk);
    }
  }

  async readChunk(index: readonly number[]): Promise<ChunkArray> {
    return (await this.lendChunk(index)).slice();
  }

  async lendChunk(index: readonly number[]): Promise<ChunkArray> {
    return this.chunks[index.reduce((sum, c, i) => sum + c * this.chunkStrides[i]!, 0)]!;
  }
}

export interface MemoryCubeOptions {
  dimensions: readonly Dimension[];
  data: ChunkArray;
  cellType?: CubeMetadata['cellType'];
  chunkShape?: readonly number[];
  geometries?: CubeMetadata['geometries'];
  units?: CubeMetadata['units'];
}

/** A cube over an array of all its values (NaN for nodata), chunked as given or about 1 Mi cells a chunk. */
export function memoryCube({
  dimensions,
  data,
  cellType = 'number',
  chunkShape,
  geometries,
  units,
}: MemoryCubeOptions): DataCube {
  const shape = dimensions.map((d) => d.labels.length);
  return new DataCube(
    new MemorySource(
      {
        dimensions,
        dtype: data instanceof Float32Array ? 'float32' : 'float64',
        cellType,
        chunkShape: chunkShape ?? defaultChunkShape(shape),
        ...(geometries ? { geometries } : {}),
        ...(units ? { units } : {}),
      },
      data,
    ),
  );
}
