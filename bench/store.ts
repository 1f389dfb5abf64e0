/**
 * Embedded store throughput at 10,000 resources: create, update, and watch delivery, side by side with the
 * floor any crash-safe file store must pay (write a temp file, fsync, rename: the peer below). Like for like: one
 * writer against one loop of the peer, `writers` concurrent writers against as many loops, all in this process
 * (one libuv pool). The peer comes twice: as the plain floor (temp file, fsync, rename), and like for like
 * with Stratus's guarantee, durable on return, which also takes a flush of the directory after the rename (without
 * it a crash can lose a write whose call returned). `node bench/store.ts` runs it alone (BENCH_STORE_COUNT,
 * BENCH_STORE_WRITERS, BENCH_RUNS).
 */
import { mkdtemp, open, rename, rm, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedCluster } from '../core/cluster/embedded/index.ts';
import type { KindRef, KubeObject } from '../core/cluster/objects.ts';
import type { Headline } from './headline.ts';
import { benchRuns, medianRange, repeat, round, times } from './summary.ts';

const benchKind: KindRef = {
  apiVersion: 'bench.stratus.dev/v1',
  kind: 'Sample',
  plural: 'samples',
  namespaced: true,
  statusSubresource: true,
};

export interface StoreFigures {
  count: number;
  createPerSecond: number;
  updatePerSecond: number;
  /** events per second when a watch replays the retained history of the updates */
  watchEventsPerSecond: number;
  peerAtomicWritesPerSecond: number;
  /** Creates from `writers` concurrent writers, and the peer's writes with as many. */
  writers: number;
  concurrentCreatePerSecond: number;
  /** The same creates counted until the store is closed: its checkpoint has written every object's file. */
  concurrentCreateCheckpointedPerSecond: number;
  peerConcurrentWritesPerSecond: number;
  /** The peer's writes made durable as Stratus's are (the directory flushed after each rename), one loop and as many. */
  durablePeerWritesPerSecond: number;
  durablePeerConcurrentWritesPerSecond: number;
}

function sample(i: number, generation: number): KubeObject {
  return {
    apiVersion: benchKind.apiVersion,
    kind: benchKind.kind,
    metadata: { name: `sample-${i}`, namespace: 'default', labels: { shard: String(i % 10) } },
    spec: { source: 'chirps-v3-daily', start: '2024-01-01', end: '2024-12-31', generation },
  };
}

async function perSecond(count: number, work: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) await work(i);
  return count / ((performance.now() - started) / 1000);
}

/** `count` pieces of work from `writers` concurrent loops, each awaiting its own one after another. */
async function concurrentPerSecond(
  count: number,
  writers: number,
  work: (i: number) => Promise<unknown>,
): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      for (let i = writer; i < count; i += writers) await work(i);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/**
 * The peer: the least a store must do per write to survive a crash, with no bookkeeping at all; with `durable`, the
 * directory flushed after the rename too, so that the write has survived once the call returns.
 */
async function peerAtomicWrites(dir: string, count: number, writers: number, durable: boolean): Promise<number> {
  await mkdir(dir, { recursive: true });
  return concurrentPerSecond(count, writers, async (i) => {
    const path = join(dir, `sample-${i}.json`);
    const handle = await open(`${path}.tmp`, 'w');
    await handle.writeFile(JSON.stringify(sample(i, 1)));
    await handle.sync();
    await handle.close();
    await rename(`${path}.tmp`, path);
    if (!durable) return;
    const directory = await open(dir, 'r');
    await directory.sync();
    await directory.close();
  });
}

export async function benchStore(count = 10_000, writers = 16): Promise<StoreFigures> {
  const root = await mkdtemp(join(tmpdir(), 'stratus-bench-store-'));
  try {
    const cluster = await openEmbeddedCluster({ dataDir: join(root, 'cluster'), historyLimit: count * 3 });
    const createPerSecond = await perSecond(count, (i) => cluster.create(benchKind, sample(i, 1)));
    const { resourceVersion } = await cluster.list(benchKind);

    const updatePerSecond = await perSecond(count, (i) =>
      cluster.patch(benchKind, `sample-${i}`, { type: 'merge', body: { spec: { generation: 2 } } }, 'default'),
    );
    // Replaying the retained history is the watch path's own cost: live delivery is bounded by the writers.
    const controller = new AbortController();
    let delivered = 0;
    const watchStarted = performance.now();
    for await (const _event of cluster.watch(benchKind, { resourceVersion, signal: controller.signal })) {
      if (++delivered === count) break;
    }
    const watchEventsPerSecond = count / ((performance.now() - watchStarted) / 1000);
    controller.abort();
    await cluster.close();

    // Many writers at once (controllers, API requests): where one flush can carry several writes.
    const concurrent = await openEmbeddedCluster({ dataDir: join(root, 'concurrent') });
    const concurrentStarted = performance.now();
    const concurrentCreatePerSecond = await concurrentPerSecond(count, writers, (i) =>
      concurrent.create(benchKind, sample(i, 1)),
    );
    // Durable on return through the journal; the object files are written behind it, and by close at the latest.
    await concurrent.close();
    const concurrentCreateCheckpointedPerSecond = count / ((performance.now() - concurrentStarted) / 1000);

    const peerAtomicWritesPerSecond = await peerAtomicWrites(join(root, 'peer'), count, 1, false);
    const peerConcurrentWritesPerSecond = await peerAtomicWrites(join(root, 'peer-concurrent'), count, writers, false);
    const durablePeerWritesPerSecond = await peerAtomicWrites(join(root, 'durable'), count, 1, true);
    const durablePeerConcurrentWritesPerSecond = await peerAtomicWrites(
      join(root, 'durable-concurrent'),
      count,
      writers,
      true,
    );
    return {
      count,
      createPerSecond,
      updatePerSecond,
      watchEventsPerSecond,
      peerAtomicWritesPerSecond,
      writers,
      concurrentCreatePerSecond,
      concurrentCreateCheckpointedPerSecond,
      peerConcurrentWritesPerSecond,
      durablePeerWritesPerSecond,
      durablePeerConcurrentWritesPerSecond,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The table: each figure and ratio as the median of the runs with their range. */
export function storeReport(runs: StoreFigures[]): string[] {
  const { count, writers } = runs[0]!;
  const row = (label: string, stratus: (r: StoreFigures) => number, peer: (r: StoreFigures) => number) =>
    `| ${label} | ${medianRange(runs.map(stratus), round)} | ${medianRange(runs.map(peer), round)} | ${medianRange(
      runs.map((r) => stratus(r) / peer(r)),
      times,
    )} |`;
  return [
    `Embedded store, ${round(count)} resources, ${runs.length} runs: median (range)`,
    '| operation | Stratus (ops/s) | peer: temp+fsync+rename (ops/s) | ratio |',
    '| --- | --- | --- | --- |',
    row(
      'create, one writer (peer: one)',
      (r) => r.createPerSecond,
      (r) => r.peerAtomicWritesPerSecond,
    ),
    row(
      'update (merge patch), one writer (peer: one)',
      (r) => r.updatePerSecond,
      (r) => r.peerAtomicWritesPerSecond,
    ),
    row(
      `create, ${writers} concurrent writers (peer: as many)`,
      (r) => r.concurrentCreatePerSecond,
      (r) => r.peerConcurrentWritesPerSecond,
    ),
    row(
      `create, ${writers} concurrent writers, until every object file is written (peer: as many)`,
      (r) => r.concurrentCreateCheckpointedPerSecond,
      (r) => r.peerConcurrentWritesPerSecond,
    ),
    row(
      'create, one writer (like for like: peer flushes its directory)',
      (r) => r.createPerSecond,
      (r) => r.durablePeerWritesPerSecond,
    ),
    row(
      `create, ${writers} concurrent writers (like for like: peer flushes its directory)`,
      (r) => r.concurrentCreatePerSecond,
      (r) => r.durablePeerConcurrentWritesPerSecond,
    ),
    row(
      `create, ${writers} concurrent writers, until every object file is written (like for like)`,
      (r) => r.concurrentCreateCheckpointedPerSecond,
      (r) => r.durablePeerConcurrentWritesPerSecond,
    ),
    `| watch replay (events/s) | ${medianRange(
      runs.map((r) => r.watchEventsPerSecond),
      round,
    )} | - | - |`,
  ];
}

/** The rows of the table of current figures: creates against the peer that flushes its directory, as Stratus does. */
export function storeHeadlines(runs: StoreFigures[]): Headline[] {
  const { count, writers } = runs[0]!;
  const peer = 'a file per object: temporary file, fsync, rename, directory fsync (Node fs, as many writers)';
  return [
    { what: 'one writer', pick: (r: StoreFigures) => r.createPerSecond / r.durablePeerWritesPerSecond },
    {
      what: `${writers} concurrent writers`,
      pick: (r: StoreFigures) => r.concurrentCreatePerSecond / r.durablePeerConcurrentWritesPerSecond,
    },
  ].map(({ what, pick }) => ({
    figure: `embedded store, create rate, ${round(count)} resources, ${what}`,
    peer,
    ratios: runs.map(pick),
    command: 'node bench/store.ts',
  }));
}

if (import.meta.main) {
  const count = Number(process.env.BENCH_STORE_COUNT ?? 10_000);
  const writers = Number(process.env.BENCH_STORE_WRITERS ?? 16);
  console.log(storeReport(await repeat(benchRuns(), () => benchStore(count, writers))).join('\n'));
  process.exit(0);
}
