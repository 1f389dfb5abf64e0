/**
 * A load generator in a process of its own that reports exact latency percentiles: autocannon's own summary has
 * p97.5 but no p95, so every response's time is recorded here (`node bench/latency-load.ts URL SECONDS
 * CONNECTIONS` prints the JSON of `LatencyLoad`). `latencyLoad` runs it from a benchmark.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import autocannon from 'autocannon';

export interface LatencyLoad {
  requests: number;
  p50Ms: number;
  p95Ms: number;
  non2xx: number;
  errors: number;
}

const run = promisify(execFile);

/** The `p` quantile of ascending `sorted` values (nearest rank). */
const quantile = (sorted: Float64Array, p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;

/** Loads `url` from a child process for `seconds` with `connections`; any non-2xx answer or error fails it. */
export async function latencyLoad(url: string, seconds: number, connections: number): Promise<LatencyLoad> {
  const { stdout } = await run(process.execPath, [import.meta.filename, url, String(seconds), String(connections)], {
    maxBuffer: 1 << 20,
  });
  const result = JSON.parse(stdout) as LatencyLoad;
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result;
}

async function measure(url: string, seconds: number, connections: number): Promise<LatencyLoad> {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const options = { url, connections, duration: seconds, timeout: 60, pipelining: 1 };
    const instance = autocannon(options, (err: unknown, done) => (err ? reject(err) : resolve(done)));
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: sorted.length,
    p50Ms: quantile(sorted, 0.5),
    p95Ms: quantile(sorted, 0.95),
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

if (import.meta.main) {
  const [url, seconds, connections] = process.argv.slice(2);
  const result = await measure(url!, Number(seconds), Number(connections));
  process.stdout.write(JSON.stringify(result), () => process.exit(0));
}
