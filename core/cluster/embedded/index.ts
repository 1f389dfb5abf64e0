import { FileCluster, type EmbeddedCluster, type EmbeddedClusterOptions } from './cluster.ts';

export type { EmbeddedCluster, EmbeddedClusterOptions } from './cluster.ts';
export { StoreInUseError } from './owner-lock.ts';

/** Opens (or creates) the file-backed cluster under `options.dataDir`. */
export function openEmbeddedCluster(options: EmbeddedClusterOptions): Promise<EmbeddedCluster> {
  return FileCluster.open(options);
}
