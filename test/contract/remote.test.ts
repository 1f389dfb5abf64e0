import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterOwner } from '../support/remote-cluster.ts';
import { clusterContract, gadgetKind, widgetKind } from './cluster.contract.ts';

// The remote adapter over a real IPC channel: the embedded cluster lives in a forked process, as in embedded mode
// with several API processes.
clusterContract('remote (over IPC)', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'stratus-contract-remote-'));
  const owner = await startClusterOwner(dataDir);
  return {
    cluster: owner.cluster,
    kind: widgetKind,
    otherKind: gadgetKind,
    namespace: 'contract',
    cleanup: async () => {
      await owner.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});
