import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.ts';

/** A group commit whose writes the test releases by hand, recording what each step was given. */
function controlled(encode: (item: number) => string = (item) => `frame ${item}`) {
  const runs: string[][] = [];
  const published: number[] = [];
  let finishing: { resolve(): void; reject(err: Error): void } | undefined;
  const commits = new GroupCommit<number, string>({
    encode,
    finish: (run) => {
      runs.push([...run]);
      return new Promise<void>((resolve, reject) => (finishing = { resolve, reject }));
    },
    publish: (item) => published.push(item),
    describeFailure: (err) => new Error(`store failed: ${String(err)}`),
  });
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setImmediate(resolve));
  };
  return { commits, runs, published, finishing: () => finishing!, until };
}

describe('group commit', () => {
  it('writes the changes staged together as one run, those staged meanwhile as the next, and publishes in order', async () => {
    const { commits, runs, published, finishing, until } = controlled();
    const settled: number[] = [];
    const stage = (n: number) => commits.stage(n).then(() => settled.push(n));
    const first = [1, 2, 3].map(stage);
    await until(() => runs.length === 1);
    expect(runs).toEqual([['frame 1', 'frame 2', 'frame 3']]);
    // Staged while the first run is being written: they wait, and make the next run together.
    const second = [4, 5].map(stage);
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toHaveLength(1);
    expect(published).toEqual([]);
    expect(commits.pending()).toBeDefined();
    finishing().resolve();
    await Promise.all(first);
    expect(published).toEqual([1, 2, 3]);
    await until(() => runs.length === 2);
    expect(runs[1]).toEqual(['frame 4', 'frame 5']);
    expect(settled).toEqual([1, 2, 3]);
    finishing().resolve();
    await Promise.all(second);
    expect(published).toEqual([1, 2, 3, 4, 5]);
    expect(settled).toEqual([1, 2, 3, 4, 5]);
    expect(commits.pending()).toBeUndefined();
  });

  it('fails every unfinished change and every later stage when a write fails', async () => {
    const { commits, runs, published, finishing, until } = controlled();
    const first = commits.stage(1);
    await until(() => runs.length === 1);
    const second = commits.stage(2);
    finishing().reject(new Error('EIO'));
    await expect(first).rejects.toThrow('store failed: Error: EIO');
    await expect(second).rejects.toThrow('store failed');
    await expect(commits.stage(3)).rejects.toThrow('store failed');
    expect(runs).toHaveLength(1);
    expect(published).toEqual([]);
    expect(commits.failure?.message).toMatch(/EIO/);
  });

  it('stops when a change cannot be encoded: the run being written lands, the changes waiting fail', async () => {
    const { commits, runs, published, finishing, until } = controlled((item) => {
      if (item === 3) throw new Error('not encodable');
      return `frame ${item}`;
    });
    const first = commits.stage(1);
    await until(() => runs.length === 1);
    const second = commits.stage(2);
    await expect(commits.stage(3)).rejects.toThrow('store failed: Error: not encodable');
    await expect(second).rejects.toThrow('store failed');
    finishing().resolve();
    await first;
    expect(published).toEqual([1]);
    await expect(commits.stage(4)).rejects.toThrow('store failed');
    expect(runs).toEqual([['frame 1']]);
    expect(commits.pending()).toBeUndefined();
  });
});
