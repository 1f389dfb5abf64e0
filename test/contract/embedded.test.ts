import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedCluster } from '../../core/cluster/embedded/index.ts';
import { clusterContract, gadgetKind, widgetKind } from './cluster.contract.ts';

clusterContract('embedded', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'stratus-contract-'));
  const cluster = await openEmbeddedCluster({ dataDir });
  return {
    cluster,
    kind: widgetKind,
    otherKind: gadgetKind,
    namespace: 'contract',
    cleanup: async () => {
      await cluster.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});
