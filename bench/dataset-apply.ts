/**
 * Many Datasets applied at once in embedded mode (`node bench/dataset-apply.ts`, BENCH_APPLY_DATASETS, default
 * 10,000): the time `make run` takes to apply them from a manifests directory, and until the Dataset controller
 * has decided every one's readiness (its `Ready` condition at the current generation). A Dataset is `Ready=True`
 * only once an ingestion materialized a version; these have none, so each ends `AwaitingIngestion`, which is the
 * whole of the controller's work on a new Dataset.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runEmbedded } from '../cmd/embedded.ts';
import { datasetKind, type Dataset } from '../core/resources/dataset/schema.ts';

const count = Number(process.env.BENCH_APPLY_DATASETS ?? 10_000);
const root = await mkdtemp(join(tmpdir(), 'stratus-bench-apply-'));
const manifests = join(root, 'manifests');
const config = join(root, 'stratus.properties');
try {
  await writeFile(config, 'instance.name = Bench\ninstance.bbox = -13.5,6.9,-10.2,10.0\n');
  const documents = [
    'apiVersion: climate.stratus.dev/v1alpha1\nkind: DataSource\nmetadata:\n  name: sample\nspec:\n  datasetName: Sample\n  provider:\n    name: sample\n',
  ];
  for (let i = 0; i < count; i++)
    documents.push(
      `apiVersion: climate.stratus.dev/v1alpha1\nkind: Dataset\nmetadata:\n  name: dataset-${String(i).padStart(5, '0')}\nspec:\n  source: sample\n  datasetName: Sample ${i}\n`,
    );
  await mkdir(manifests);
  await writeFile(join(manifests, 'datasets.yaml'), documents.join('---\n'));

  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  const loadBefore = load();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const running = await runEmbedded({
    dataDir: join(root, 'data'),
    manifests: [manifests],
    config,
    host: '127.0.0.1',
    port: 0,
  });
  const applied = performance.now();
  const decided = (d: Dataset) =>
    d.status?.conditions?.some((c) => c.type === 'Ready' && c.observedGeneration === d.metadata.generation) ?? false;
  // A watch (its first events are every Dataset there is) rather than listing 10,000 objects again and again,
  // which would take the cores the measured controllers need.
  const seen = new Set<string>();
  const abort = new AbortController();
  for await (const { object } of running.cluster.watch<Dataset>(datasetKind, {
    namespace: 'default',
    signal: abort.signal,
  })) {
    if (object.kind === datasetKind.kind && decided(object)) seen.add(object.metadata.name);
    if (seen.size >= count) break;
  }
  abort.abort();
  const finished = performance.now();
  const cpu = process.cpuUsage(cpuBefore);
  console.log(
    `${count.toLocaleString('en-US')} Datasets: applied in ${((applied - started) / 1000).toFixed(1)} s (with the ` +
      `start of embedded mode), readiness decided for all ${((finished - started) / 1000).toFixed(1)} s after the ` +
      `start; CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (user ${(cpu.user / 1e6).toFixed(1)}, system ` +
      `${(cpu.system / 1e6).toFixed(1)}); load average ${loadBefore} before, ${load()} after`,
  );
  await running.stop();
} finally {
  await rm(root, { recursive: true, force: true });
}
process.exit(0);
