import { describe, expect, it } from 'vitest';
import { float32RunSums, runSumsAt, runSumsRoom } from './run-sums.ts';
import { float32InSharedMemory, sharedMemoryOf } from './shared-memory.ts';

/** 100 × 100 pixels a plane. */
const PLANE = 10_000;

/**
 * Values of magnitudes from 1e-20 to 1e19, so that adding them in any other order than pixel order gives other
 * bits; NaN every 13th, -0 every 29th.
 */
const value = (i: number) =>
  i % 13 === 0 ? NaN : i % 29 === 0 ? -0 : Math.fround(((i * 7919) % 1000) * 10 ** ((i % 40) - 20) * (i % 3 ? 1 : -1));

/** `planes` planes in a shared WebAssembly memory (seven at least, for the chunk to be large enough for one). */
function chunk(planes: number): Float32Array {
  const values = float32InSharedMemory(planes * PLANE)!;
  values.forEach((_, i) => (values[i] = value(i)));
  return values;
}

/** Runs of 1 to 17 pixels at every alignment, and one ending at the plane's last pixel. */
function runs(): { base: Int32Array; length: Int32Array } {
  const base: number[] = [];
  const length: number[] = [];
  for (let r = 0, at = 3; at + 17 < PLANE; r++) {
    base.push(at);
    length.push(1 + (r % 17));
    at += 1 + (r % 17) + (r % 5);
  }
  base.push(PLANE - 6);
  length.push(6);
  return { base: Int32Array.from(base), length: Int32Array.from(length) };
}

/** Each plane's sum of each run's values that are not NaN, in pixel order, and its NaNs. */
function reference(values: Float32Array, base: Int32Array, length: Int32Array, offsets: Int32Array) {
  return Array.from(offsets, (offset) =>
    Array.from(base, (start, r) => {
      let [sum, nans] = [0, 0];
      for (let k = offset + start; k < offset + start + length[r]!; k++)
        if (Number.isNaN(values[k]!)) nans++;
        else sum += values[k]!;
      return { sum, nans };
    }),
  );
}

describe('the SIMD run-sums kernel', () => {
  it.each([1, 3, 4, 5, 7])(
    'sums runs of 1 to 17 pixels in %i planes (groups of four and the planes after) in pixel order, NaN left out and counted',
    (planes) => {
      const values = chunk(7);
      const { base, length } = runs();
      // Planes in another order than stored, as a chunk's box of other dimensions may have them.
      const offsets = Int32Array.from({ length: planes }, (_, b) => ((b * 3) % 7) * PLANE);
      const { sums, nans } = float32RunSums(sharedMemoryOf(values)!, values, base, length, offsets)!;
      const expected = reference(values, base, length, offsets);
      for (let b = 0; b < planes; b++)
        for (let r = 0; r < base.length; r++) {
          const at = runSumsAt(b, r, base.length);
          expect(Object.is(sums[at], expected[b]![r]!.sum), `plane ${b} run ${r}`).toBe(true);
          expect(nans[at]).toBe(expected[b]![r]!.nans);
        }
    },
  );

  it('reads a chunk from its offset in its memory', () => {
    const values = chunk(7);
    const view = values.subarray(5, 5 + PLANE);
    const base = Int32Array.of(0, 10, PLANE - 4);
    const length = Int32Array.of(4, 9, 4);
    const offsets = Int32Array.of(0);
    const { sums, nans } = float32RunSums(sharedMemoryOf(values)!, view, base, length, offsets)!;
    const expected = reference(view, base, length, offsets)[0]!;
    expect(Array.from(base, (_, r) => sums[runSumsAt(0, r, 3)])).toEqual(expected.map((e) => e.sum));
    expect(Array.from(base, (_, r) => nans[runSumsAt(0, r, 3)])).toEqual(expected.map((e) => e.nans));
  });

  it("keeps its results in this thread's memory, which the JavaScript loop's room is too", () => {
    const values = chunk(7);
    const first = float32RunSums(sharedMemoryOf(values)!, values, Int32Array.of(1), Int32Array.of(3), Int32Array.of(0));
    const room = runSumsRoom(1, 1);
    expect(room.sums.buffer).toBe(first!.sums.buffer);
  });

  it('leaves a chunk of more runs than its memory keeps results for to the JavaScript loop, whose room is its own', () => {
    const values = chunk(7);
    const runs = 600_000;
    const offsets = Int32Array.from({ length: 7 }, (_, b) => b * PLANE);
    const base = new Int32Array(runs);
    const length = new Int32Array(runs).fill(1);
    expect(float32RunSums(sharedMemoryOf(values)!, values, base, length, offsets)).toBeUndefined();
    const room = runSumsRoom(7, runs);
    expect(room.sums).toHaveLength(8 * runs);
    expect(room.sums.buffer).not.toBe(runSumsRoom(1, 1).sums.buffer);
  });
});

describe('float32 chunks in shared WebAssembly memories', () => {
  it('are zeros in a memory of their own, found from the array, when large enough to gain by it', () => {
    const values = float32InSharedMemory(300_000)!;
    expect(values).toHaveLength(300_000);
    expect(values.every((v) => v === 0)).toBe(true);
    expect(values.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(sharedMemoryOf(values)!.buffer).toBe(values.buffer);
    expect(sharedMemoryOf(values.subarray(10))).toBe(sharedMemoryOf(values));
  });

  it('are not for small chunks, nor for arrays allocated elsewhere', () => {
    expect(float32InSharedMemory(1000)).toBeUndefined();
    expect(sharedMemoryOf(new Float32Array(new SharedArrayBuffer(2 ** 20)))).toBeUndefined();
  });
});
