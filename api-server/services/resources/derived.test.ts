import { describe, expect, it } from 'vitest';
import { derived } from './derived.ts';

describe('derived', () => {
  it('derives once per array and function, anew for another array or function', () => {
    let calls = 0;
    const evens = (items: readonly { n: number }[]) => (calls++, items.filter((i) => i.n % 2 === 0));
    const odds = (items: readonly { n: number }[]) => (calls++, items.filter((i) => i.n % 2 === 1));
    const items = [{ n: 1 }, { n: 2 }];
    expect(derived(items, evens)).toEqual([{ n: 2 }]);
    expect(derived(items, evens)).toBe(derived(items, evens));
    expect(calls).toBe(1);
    expect(derived(items, odds)).toEqual([{ n: 1 }]);
    expect(calls).toBe(2);
    // A new state of a cache is a new array: derived again, never answered from the old one.
    expect(derived([...items, { n: 4 }], evens)).toEqual([{ n: 2 }, { n: 4 }]);
    expect(calls).toBe(3);
  });
});
