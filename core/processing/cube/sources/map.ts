/**
 * A cube computed chunk by chunk from cubes on the same grid (same shape and chunk shape): `apply` with a kernel
 * or an interpreted callback, `mask` against an aligned mask, merges of aligned cubes. Memory: one chunk of each
 * input and one of output at a time.
 */
import { newChunk, type ChunkArray, type CubeMetadata, type CubeSource, type DataCube } from '../cube.ts';
import { chunkRegion, product } from '../grid.ts';

export type ChunkMap = (inputs: ChunkArray[], out: ChunkArray, signal?: AbortSignal) => void | Promise<void>;

export class MapSource implements CubeSource {
  readonly metadata: CubeMetadata;
  private readonly inputs: readonly DataCube[];
  private readonly map: ChunkMap;

  constructor(inputs: readonly DataCube[], metadata: CubeMetadata, map: ChunkMap) {
    for (const input of inputs) {
      if (
        input.shape.join() !== inputs[0]!.shape.join() ||
        input.metadata.chunkShape.join() !== metadata.chunkShape.join()
      )
        throw new Error('the inputs of a map share one grid');
    }
    this.inputs = inputs;
    this.metadata = metadata;
    this.map = map;
  }

  async readChunk(index: readonly number[], signal?: AbortSignal): Promise<ChunkArray> {
    const chunks = await Promise.all(this.inputs.map((input) => input.source.readChunk(index, signal)));
    const shape = this.metadata.dimensions.map((d) => d.labels.length);
    const out = newChunk(this.metadata.dtype, product(chunkRegion(shape, this.metadata.chunkShape, index).shape));
    await this.map(chunks, out, signal);
    return out;
  }
}
