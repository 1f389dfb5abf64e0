import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { REQUEST_DURATION_BUCKETS, RequestDurations } from './request-durations.ts';

describe('request durations', () => {
  it("expose the same lines as prom-client's own histogram given the same requests", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const durations = RequestDurations.on(ours);
    const reference = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Duration of HTTP requests in seconds, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: REQUEST_DURATION_BUCKETS,
      registers: [theirs],
    });
    const requests: [string, string, number, number][] = [
      ['GET', '/zarr/:dataset_id/*', 200, 0.0004],
      ['GET', '/zarr/:dataset_id/*', 200, 0.001],
      ['GET', '/zarr/:dataset_id/*', 304, 0.02],
      ['POST', '/oauth2/token', 200, 0.7],
      ['GET', '/datasets', 200, 12],
    ];
    for (const [method, route, status, seconds] of requests) {
      durations.observe(method, route, status, seconds);
      reference.observe({ method, route, status_code: String(status) }, seconds);
    }
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain(
      'http_request_duration_seconds_count{method="GET",route="/zarr/:dataset_id/*",status_code="200"} 2',
    );
    expect(RequestDurations.on(ours)).toBe(durations);
    ours.resetMetrics();
    expect(await ours.metrics()).not.toContain('_count');
  });
});
