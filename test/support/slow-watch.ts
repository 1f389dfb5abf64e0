import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { onTestFinished } from 'vitest';
import { openEmbeddedCluster } from '../../core/cluster/embedded/index.ts';
import type { KubeObject } from '../../core/cluster/objects.ts';
import type { Cluster, WatchEvent } from '../../core/cluster/port.ts';

/**
 * An embedded cluster whose watches deliver every event `delayMs` late, as a remote API server's may: what a cache
 * fed by a watch lacks right after a write. `embedded` is the cluster itself (another writer's view); both are
 * closed and removed when the test ends.
 */
export async function slowWatchCluster(delayMs: number) {
  const dataDir = await mkdtemp(join(tmpdir(), 'stratus-slow-watch-'));
  const embedded = await openEmbeddedCluster({ dataDir });
  async function* late(events: AsyncIterable<WatchEvent<KubeObject>>) {
    for await (const event of events) {
      await sleep(delayMs);
      yield event;
    }
  }
  const cluster = new Proxy(embedded, {
    get(target, property) {
      if (property === 'watch') return (...args: Parameters<Cluster['watch']>) => late(target.watch(...args));
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as Cluster;
  onTestFinished(async () => {
    await embedded.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return { cluster, embedded, dataDir };
}
