/** `make bench`: runs every benchmark once and prints the figures with their ratio to the peer. */
import { benchApi } from './api.ts';
import { benchStore } from './store.ts';

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
const round = (n: number) => Math.round(n).toLocaleString('en-US');

const store = await benchStore(Number(process.env.BENCH_STORE_COUNT ?? 10_000));
console.log(`\nEmbedded store, ${store.count.toLocaleString('en-US')} resources`);
console.log('| operation | Stratus (ops/s) | peer: temp+fsync+rename (ops/s) | ratio |');
console.log('| --- | --- | --- | --- |');
console.log(
  `| create | ${round(store.createPerSecond)} | ${round(store.peerAtomicWritesPerSecond)} | ${ratio(store.createPerSecond, store.peerAtomicWritesPerSecond)} |`,
);
console.log(
  `| update (merge patch) | ${round(store.updatePerSecond)} | ${round(store.peerAtomicWritesPerSecond)} | ${ratio(store.updatePerSecond, store.peerAtomicWritesPerSecond)} |`,
);
console.log(`| watch replay (events/s) | ${round(store.watchEventsPerSecond)} | - | - |`);

const api = await benchApi(50, Number(process.env.BENCH_SECONDS ?? 10));
console.log('\nAPI server (autocannon, 16 connections)');
console.log('| endpoint | Stratus (req/s) | p99 (ms) | peer: bare node:http (req/s) | ratio |');
console.log('| --- | --- | --- | --- | --- |');
for (const f of api) {
  console.log(
    `| GET ${f.path} | ${round(f.stratusRequestsPerSecond)} | ${f.stratusLatencyP99Ms} | ${round(f.peerRequestsPerSecond)} | ${ratio(f.stratusRequestsPerSecond, f.peerRequestsPerSecond)} |`,
  );
}
// The Icechunk/wasm pitfall of DESIGN.md §4 aside, open handles must not keep a benchmark alive.
process.exit(0);
