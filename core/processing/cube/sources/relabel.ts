/** The same values under other metadata: renamed dimensions or labels, a changed cell type. */
import type { ChunkArray, CubeMetadata, CubeSource, DataCube } from '../cube.ts';

export class RelabelSource implements CubeSource {
  readonly metadata: CubeMetadata;
  private readonly parent: DataCube;

  constructor(parent: DataCube, metadata: CubeMetadata) {
    if (metadata.dimensions.map((d) => d.labels.length).join() !== parent.shape.join())
      throw new Error('relabelling keeps the shape');
    this.parent = parent;
    this.metadata = metadata;
  }

  readChunk(index: readonly number[], signal?: AbortSignal): Promise<ChunkArray> {
    return this.parent.source.readChunk(index, signal);
  }
}
