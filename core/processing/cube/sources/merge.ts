/**
 * `merge_cubes` on the merged grid: both cubes aligned to it (absent labels nodata), and per dimension which
 * labels each cube has. A cell both cubes have goes through the overlap resolver; a cell one has is its value.
 */
import { newChunk, type ChunkArray, type CubeMetadata, type CubeSource, type DataCube } from '../cube.ts';
import { advance, chunkRegion, product } from '../grid.ts';
import type { ChunkMap } from './map.ts';

export class MergeSource implements CubeSource {
  readonly metadata: CubeMetadata;
  private readonly cubes: [DataCube, DataCube];
  /** Per cube, per dimension: 1 where the cube has the label. */
  private readonly presence: [Uint8Array[], Uint8Array[]];
  private readonly resolve: ChunkMap | undefined;

  constructor(
    metadata: CubeMetadata,
    cubes: [DataCube, DataCube],
    presence: [Uint8Array[], Uint8Array[]],
    resolve: ChunkMap | undefined,
  ) {
    this.metadata = metadata;
    this.cubes = cubes;
    this.presence = presence;
    this.resolve = resolve;
  }

  async readChunk(index: readonly number[], signal?: AbortSignal): Promise<ChunkArray> {
    const shape = this.metadata.dimensions.map((d) => d.labels.length);
    const region = chunkRegion(shape, this.metadata.chunkShape, index);
    const [a, b] = await Promise.all(this.cubes.map((c) => c.source.readChunk(index, signal)));
    const out = newChunk(this.metadata.dtype, product(region.shape));
    let resolved: ChunkArray | undefined;
    if (this.resolve) {
      resolved = newChunk('float64', out.length);
      await this.resolve([a!, b!], resolved, signal);
    }
    const rank = shape.length;
    const position = region.shape.map(() => 0);
    for (let i = 0; i < out.length; i++) {
      let inA = true;
      let inB = true;
      for (let d = 0; d < rank; d++) {
        const p = region.start[d]! + position[d]!;
        inA &&= this.presence[0][d]![p] === 1;
        inB &&= this.presence[1][d]![p] === 1;
      }
      out[i] = inA && inB ? resolved![i]! : inA ? a![i]! : inB ? b![i]! : NaN;
      advance(position, region.shape);
    }
    return out;
  }
}
