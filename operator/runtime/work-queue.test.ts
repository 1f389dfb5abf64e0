import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { controllerMetrics } from './metrics.ts';
import { WorkQueue } from './work-queue.ts';

const queueWith = (options: Partial<ConstructorParameters<typeof WorkQueue>[0]> = {}) => {
  const registry = new Registry();
  return { queue: new WorkQueue({ name: 'test', metrics: controllerMetrics(registry), ...options }), registry };
};

describe('work queue', () => {
  it('processes a key added many times once', async () => {
    const { queue } = queueWith();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
  });

  it('never hands a key to two workers: a re-add while processing runs after done', async () => {
    const { queue } = queueWith();
    queue.add('a');
    const first = await queue.get();
    queue.add('a');
    expect(queue.length).toBe(0);
    let second: string | undefined;
    void queue.get().then((k) => (second = k));
    await new Promise((r) => setTimeout(r, 10));
    expect(second).toBeUndefined();
    queue.done(first!);
    await new Promise((r) => setTimeout(r, 0));
    expect(second).toBe('a');
  });

  it('backs off per key exponentially up to the cap, and forget resets it', () => {
    const { queue } = queueWith({ baseDelayMs: 5, maxDelayMs: 1000, qps: 1e9, burst: 1e9 });
    const delays = Array.from({ length: 10 }, () => queue.nextDelay('a'));
    expect(delays).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
    expect(queue.nextDelay('b')).toBe(5);
    queue.forget('a');
    expect(queue.nextDelay('a')).toBe(5);
  });

  it('limits the overall rate with a token bucket once the burst is spent', () => {
    let now = 0;
    const { queue } = queueWith({ baseDelayMs: 1, qps: 10, burst: 2, now: () => now });
    expect(queue.nextDelay('a')).toBe(1);
    expect(queue.nextDelay('b')).toBe(1);
    expect(queue.nextDelay('c')).toBe(100); // one token short at 10 qps
    now = 1000;
    expect(queue.nextDelay('d')).toBe(1);
  });

  it('wakes waiting workers with undefined on shutdown', async () => {
    const { queue } = queueWith();
    const waiting = queue.get();
    queue.shutdown();
    expect(await waiting).toBeUndefined();
    queue.add('late');
    expect(queue.length).toBe(0);
  });

  it('reports depth, adds and retries under client-go names', async () => {
    const { queue, registry } = queueWith();
    queue.add('a');
    queue.add('b');
    queue.addRateLimited('c');
    const text = await registry.metrics();
    expect(text).toMatch(/workqueue_depth\{name="test"\} 2/);
    expect(text).toMatch(/workqueue_adds_total\{name="test"\} 2/);
    expect(text).toMatch(/workqueue_retries_total\{name="test"\} 1/);
    queue.shutdown();
  });
});
