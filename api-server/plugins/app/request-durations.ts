import type { Metric, Registry } from 'prom-client';

const NAME = 'http_request_duration_seconds';
const HELP = 'Duration of HTTP requests in seconds, by method, route pattern and status code.';
/** Upper bounds of the buckets, in seconds. */
export const REQUEST_DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Labels = { method: string; route: string; status_code: string };

/** One line of the exposition, as prom-client's registry reads a metric's values. */
interface Sample {
  metricName: string;
  labels: Labels | (Labels & { le: number | string });
  value: number;
}

interface Series {
  labels: Labels;
  /** Observations per bucket (the last one past every bound), not yet cumulative. */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * `http_request_duration_seconds`, the histogram of every answered request, as a metric of prom-client's registry
 * that it formats like its own `Histogram`. prom-client's `observe` validates and hashes the label object on every
 * call (as much as the rest of a small `/zarr` chunk's own work, measured in the history of docs/performance.md);
 * here a series is found by one string key, and the labels are put together once per series.
 */
export class RequestDurations {
  readonly name = NAME;
  readonly help = HELP;
  readonly #series = new Map<string, Series>();

  /** The instance on `registry`, registered there on first use (every app built over one registry shares it). */
  static on(registry: Registry): RequestDurations {
    const known = registry.getSingleMetric(NAME) as unknown;
    if (known instanceof RequestDurations) return known;
    const durations = new RequestDurations();
    // The registry takes any object with prom-client's metric shape (`name`, `get`, `reset`).
    registry.registerMetric(durations as unknown as Metric);
    return durations;
  }

  observe(method: string, route: string, statusCode: number, seconds: number): void {
    const key = `${method} ${statusCode} ${route}`;
    let series = this.#series.get(key);
    if (!series) {
      const labels = { method, route, status_code: String(statusCode) };
      series = { labels, counts: new Array<number>(REQUEST_DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    let bucket = 0;
    while (bucket < REQUEST_DURATION_BUCKETS.length && seconds > REQUEST_DURATION_BUCKETS[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.sum += seconds;
    series.count++;
  }

  async get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: Sample[] }> {
    const values: Sample[] = [];
    for (const { labels, counts, sum, count } of this.#series.values()) {
      let cumulative = 0;
      REQUEST_DURATION_BUCKETS.forEach((le, i) => {
        cumulative += counts[i]!;
        values.push({ metricName: `${NAME}_bucket`, labels: { le, ...labels }, value: cumulative });
      });
      values.push({ metricName: `${NAME}_bucket`, labels: { le: '+Inf', ...labels }, value: count });
      values.push({ metricName: `${NAME}_sum`, labels, value: sum });
      values.push({ metricName: `${NAME}_count`, labels, value: count });
    }
    return { name: NAME, help: HELP, type: 'histogram', aggregator: 'sum', values };
  }

  reset(): void {
    this.#series.clear();
  }
}
