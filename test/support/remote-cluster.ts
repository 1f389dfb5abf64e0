import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { remoteCluster, type RemoteCluster } from '../../core/cluster/remote/client.ts';

const OWNER = join(import.meta.dirname, 'cluster-owner.ts');

export interface ClusterOwner {
  /** The owner's cluster, reached over the IPC channel. */
  cluster: RemoteCluster;
  process: ChildProcess;
  /** Closes the channel and waits for the owner to exit. */
  stop(): Promise<void>;
}

/** Forks a process owning an embedded cluster in `dataDir` and returns its cluster over IPC, once it serves. */
export async function startClusterOwner(dataDir: string, historyLimit?: number): Promise<ClusterOwner> {
  const args = historyLimit === undefined ? [dataDir] : [dataDir, String(historyLimit)];
  const owner = fork(OWNER, args, { execArgv: [], serialization: 'json', stdio: 'inherit' });
  const [ready] = (await once(owner, 'message')) as [unknown];
  if (ready !== 'ready') throw new Error(`the cluster owner said ${JSON.stringify(ready)}`);
  const cluster = remoteCluster(owner);
  return {
    cluster,
    process: owner,
    stop: async () => {
      cluster.close();
      if (owner.exitCode !== null || owner.signalCode !== null) return;
      const exited = once(owner, 'exit');
      if (owner.connected) owner.disconnect();
      await exited;
    },
  };
}
