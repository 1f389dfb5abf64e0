import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.ts';

/** A group commit over a write that the test releases by hand, recording each group it was given. */
function controlled() {
  const groups: number[][] = [];
  const published: number[] = [];
  let release: (() => void) | undefined;
  let fail: ((err: Error) => void) | undefined;
  const commits = new GroupCommit<number>({
    write: (group) => {
      groups.push([...group]);
      return new Promise<void>((resolve, reject) => {
        release = resolve;
        fail = reject;
      });
    },
    publish: (item) => published.push(item),
    describeFailure: (err) => new Error(`store failed: ${String(err)}`),
  });
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setImmediate(resolve));
  };
  return { commits, groups, published, release: () => release!(), fail: (err: Error) => fail!(err), until };
}

describe('group commit', () => {
  it('writes what is staged during a write together in the next one, and publishes in order once durable', async () => {
    const { commits, groups, published, release, until } = controlled();
    const first = commits.stage(1);
    await until(() => groups.length === 1);
    const later = [2, 3, 4, 5].map((n) => commits.stage(n));
    expect(published).toEqual([]);
    release();
    await first;
    expect(published).toEqual([1]);
    await until(() => groups.length === 2);
    expect(groups).toEqual([[1], [2, 3, 4, 5]]);
    expect(published).toEqual([1]);
    release();
    await Promise.all(later);
    expect(published).toEqual([1, 2, 3, 4, 5]);
    expect(commits.pending()).toBeUndefined();
  });

  it('fails the group, what was staged after it and every later stage when a write fails, publishing none', async () => {
    const { commits, groups, published, fail, until } = controlled();
    const first = commits.stage(1);
    await until(() => groups.length === 1);
    const second = commits.stage(2);
    fail(new Error('EIO'));
    await expect(first).rejects.toThrow('store failed: Error: EIO');
    await expect(second).rejects.toThrow('store failed');
    await expect(commits.stage(3)).rejects.toThrow('store failed');
    expect(published).toEqual([]);
    expect(groups).toEqual([[1]]);
    expect(commits.failure?.message).toMatch(/EIO/);
  });
});
