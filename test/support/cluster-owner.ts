/**
 * A forked process that owns an embedded cluster in `process.argv[2]` (keeping `process.argv[3]` watch events per
 * kind when given) and serves it over its IPC channel (`startClusterOwner` in `remote-cluster.ts` forks it). It
 * sends `ready` once it serves and exits when the channel closes.
 */
import { openEmbeddedCluster } from '../../core/cluster/embedded/index.ts';
import { serveCluster } from '../../core/cluster/remote/serve.ts';

const historyLimit = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
const cluster = await openEmbeddedCluster({ dataDir: process.argv[2]!, historyLimit });
serveCluster(cluster, process as Parameters<typeof serveCluster>[1]);
process.once('disconnect', () => void cluster.close().then(() => process.exit(0)));
process.send!('ready');
