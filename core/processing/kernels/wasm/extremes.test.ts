import { describe, expect, it } from 'vitest';
import { Float32Extremes } from './extremes.ts';

/** Each cell's largest or smallest value over `rows`, NaN left out; ±Infinity where every value was NaN. */
function reference(rows: Float32Array[], max: boolean): Float32Array {
  const out = new Float32Array(rows[0]!.length).fill(max ? -Infinity : Infinity);
  for (const row of rows)
    row.forEach((v, q) => {
      if (max ? v > out[q]! : v < out[q]!) out[q] = v;
    });
  return out;
}

const row = (cells: number, seed: number) =>
  Float32Array.from({ length: cells }, (_, q) => Math.fround(Math.sin(seed * 7.1 + q * 1.3) * 40));

describe('the SIMD extremes kernel', () => {
  it.each([1, 3, 4, 5, 17, 100_003])(
    'folds rows of %i cells (whole groups of four and the cells after) into the largest and the smallest',
    (cells) => {
      const rows = Array.from({ length: 5 }, (_, d) => row(cells, d));
      for (const max of [true, false]) {
        const kernel = new Float32Extremes(cells, max);
        for (const r of rows) expect(kernel.day(r, 0, cells, 0)).toBe(false);
        expect(kernel.values()).toEqual(reference(rows, max));
      }
    },
  );

  it('leaves a NaN out, in a group of four or after the last, and says the row had one', () => {
    const cells = 7;
    const rows = [row(cells, 1), row(cells, 2)];
    rows[1]![2] = NaN; // in the first group of four
    rows[1]![6] = NaN; // after it
    for (const max of [true, false]) {
      const kernel = new Float32Extremes(cells, max);
      expect(kernel.day(rows[0]!, 0, cells, 0)).toBe(false);
      expect(kernel.day(rows[1]!, 0, cells, 0)).toBe(true);
      expect(kernel.values()).toEqual(reference(rows, max));
      expect(kernel.values()[2]).toBe(rows[0]![2]);
      const onlyNaN = new Float32Extremes(1, max);
      expect(onlyNaN.day(Float32Array.of(NaN), 0, 1, 0)).toBe(true);
      expect(onlyNaN.values()[0]).toBe(max ? -Infinity : Infinity);
    }
  });

  it('keeps the first of two equal extremes, -0 or 0, as a comparison would', () => {
    const kernel = new Float32Extremes(5, true);
    kernel.day(Float32Array.of(-0, 0, -0, 0, -0), 0, 5, 0);
    kernel.day(Float32Array.of(0, -0, 0, -0, 0), 0, 5, 0);
    expect(Array.from(kernel.values(), (v) => Object.is(v, -0))).toEqual([true, false, true, false, true]);
  });

  it('reads a row from an offset of its array into accumulators from an offset, the others untouched', () => {
    const values = Float32Array.of(9, 9, 1, 2, 3, 4, 5, 9);
    const kernel = new Float32Extremes(12, true);
    kernel.day(values, 2, 5, 6);
    expect(Array.from(kernel.values())).toEqual([...Array(6).fill(-Infinity), 1, 2, 3, 4, 5, -Infinity]);
  });
});
