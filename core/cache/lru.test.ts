import { describe, expect, it } from 'vitest';
import { Lru } from './lru.ts';

describe('Lru', () => {
  it('lets the least recently used entries go once the weights pass the budget', () => {
    const cache = new Lru<string>(10);
    cache.set('a', 'A', 4);
    cache.set('b', 'B', 4);
    expect(cache.get('a')).toBe('A');
    // 12 > 10: b, used longest ago, goes; a was read after it was written.
    cache.set('c', 'C', 4);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['A', undefined, 'C']);
  });

  it('counts entries when no weight is given, and a replaced or deleted entry no longer weighs', () => {
    const cache = new Lru<number>(2);
    cache.set('a', 1);
    cache.set('a', 2);
    cache.set('b', 3);
    expect([cache.get('a'), cache.get('b')]).toEqual([2, 3]);
    cache.delete('a');
    cache.set('c', 4);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 3, 4]);
  });

  it('keeps an entry read at least once while half as many new entries as it holds were written', () => {
    const cache = new Lru<number>(4);
    for (const key of ['hot', 'b', 'c', 'd']) cache.set(key, 1);
    expect(cache.get('hot')).toBe(1);
    for (let i = 0; i < 20; i++) {
      cache.set(`new-${i}`, 1);
      if (i % 2 === 1) expect(cache.get('hot')).toBe(1);
    }
    expect(cache.get('new-15')).toBeUndefined();
    expect(cache.get('new-19')).toBe(1);
  });

  it('holds nothing heavier than the whole budget', () => {
    const cache = new Lru<string>(10);
    cache.set('small', 's', 5);
    cache.set('huge', 'h', 11);
    expect([cache.get('small'), cache.get('huge')]).toEqual([undefined, undefined]);
  });
});
