import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.ts';

/** A group commit whose prepares and finishes the test releases by hand, recording what each step was given. */
function controlled() {
  const preparing = new Map<number, { resolve(): void; reject(err: Error): void }>();
  const runs: number[][] = [];
  const published: number[] = [];
  const discarded: number[] = [];
  let finishing: { resolve(): void; reject(err: Error): void } | undefined;
  const commits = new GroupCommit<number, number>({
    prepare: (item) =>
      new Promise<number>((resolve, reject) => preparing.set(item, { resolve: () => resolve(item), reject })),
    finish: (run) => {
      runs.push([...run]);
      return new Promise<void>((resolve, reject) => (finishing = { resolve, reject }));
    },
    discard: async (prepared) => void discarded.push(...prepared),
    publish: (item) => published.push(item),
    describeFailure: (err) => new Error(`store failed: ${String(err)}`),
  });
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setImmediate(resolve));
  };
  const prepared = (item: number) => preparing.get(item)!.resolve();
  const finished = () => finishing!.resolve();
  return { commits, preparing, runs, published, discarded, prepared, finished, finishing: () => finishing, until };
}

describe('group commit', () => {
  it('prepares at once, finishes ready runs in stage order together, and publishes once durable', async () => {
    const { commits, runs, published, prepared, finished, until } = controlled();
    const settled: number[] = [];
    const stages = [1, 2, 3, 4, 5].map((n) => commits.stage(n).then(() => settled.push(n)));
    await until(() => true);
    // A later change prepared first waits for those staged before it.
    prepared(3);
    prepared(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toEqual([]);
    prepared(1);
    await until(() => runs.length === 1);
    expect(runs).toEqual([[1, 2, 3]]);
    prepared(4);
    prepared(5);
    expect(published).toEqual([]);
    finished();
    await until(() => runs.length === 2);
    expect(published).toEqual([1, 2, 3]);
    expect(runs[1]).toEqual([4, 5]);
    finished();
    await Promise.all(stages);
    expect(published).toEqual([1, 2, 3, 4, 5]);
    expect(settled).toEqual([1, 2, 3, 4, 5]);
    expect(commits.pending()).toBeUndefined();
  });

  it('prepares at most 64 changes at a time, the others when a place frees', async () => {
    const { commits, preparing, prepared, until } = controlled();
    for (let n = 1; n <= 100; n++) void commits.stage(n);
    await until(() => preparing.size === 64);
    await new Promise((resolve) => setImmediate(resolve));
    expect(preparing.size).toBe(64);
    prepared(1);
    await until(() => preparing.size === 65);
    expect(preparing.has(65)).toBe(true);
  });

  it('fails every unfinished change and every later stage when a write fails, discarding what was prepared', async () => {
    const { commits, runs, published, discarded, prepared, finishing, until } = controlled();
    const first = commits.stage(1);
    const second = commits.stage(2);
    prepared(1);
    await until(() => runs.length === 1);
    prepared(2);
    await until(() => true);
    finishing()!.reject(new Error('EIO'));
    await expect(first).rejects.toThrow('store failed: Error: EIO');
    await expect(second).rejects.toThrow('store failed');
    await expect(commits.stage(3)).rejects.toThrow('store failed');
    expect(published).toEqual([]);
    expect(discarded.sort()).toEqual([1, 2]);
    expect(commits.failure?.message).toMatch(/EIO/);
  });
});
