/**
 * `/zarr` chunk GETs per second against nginx serving the same directory (issue 4): 4 KiB and 1 MiB chunk files,
 * loaded by wrk in turn over many keys so neither server answers one file from a hot path only.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { buildApp } from '../api-server/app.ts';
import { openEmbeddedCluster } from '../core/cluster/embedded/index.ts';
import { parseInstanceConfig } from '../core/config/index.ts';
import { datasetKind } from '../core/resources/dataset/schema.ts';
import { API_VERSION } from '../core/resources/registry.ts';
import { setCurrentVersion } from '../test/support/current-version.ts';
import { startNginx, wrk } from './peers.ts';

export interface ChunkServingFigures {
  chunk: string;
  stratus: number;
  nginx: number;
}

export async function benchZarrServing(seconds: number): Promise<ChunkServingFigures[]> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-zarr-'));
  const version = join(root, 'store/datasets/bench/versions/v1');
  const sets = [
    { chunk: '4 KiB', dir: 'small', size: 4096, count: 1000 },
    { chunk: '1 MiB', dir: 'big', size: 1 << 20, count: 64 },
  ];
  for (const set of sets) {
    await mkdir(join(version, set.dir), { recursive: true });
    for (let i = 0; i < set.count; i++) await writeFile(join(version, set.dir, `${i}.0.0`), randomBytes(set.size));
  }
  const cluster = await openEmbeddedCluster({ dataDir: join(root, 'cluster') });
  await cluster.create(datasetKind, {
    apiVersion: API_VERSION,
    kind: 'Dataset',
    metadata: { name: 'bench', namespace: 'default' },
    spec: { source: 'sample', datasetName: 'Bench', itemType: 'coverage', format: 'zarr' },
  });
  await setCurrentVersion(cluster, 'bench', 'v1');
  const app = await buildApp({
    cluster,
    config: parseInstanceConfig('instance.name = Bench', 'bench'),
    registry: new Registry(),
    logger: false,
    storageRoot: join(root, 'store'),
  });
  const stratus = await app.listen({ port: 0, host: '127.0.0.1' });
  const nginx = await startNginx(join(root, 'nginx'), '/zarr/bench/', version);
  const figures: ChunkServingFigures[] = [];
  try {
    for (const set of sets) {
      const paths = Array.from({ length: set.count }, (_, i) => `/zarr/bench/${set.dir}/${i}.0.0`);
      figures.push({
        chunk: set.chunk,
        stratus: await wrk(stratus, paths, seconds),
        nginx: await wrk(nginx.url, paths, seconds),
      });
    }
  } finally {
    await nginx.stop();
    await app.close();
    await cluster.close();
    await rm(root, { recursive: true, force: true });
  }
  return figures;
}
