/** A deterministic hash of (seed, a, b, c) into [0, 1); the source of every synthetic value of the sample providers. */
export function hash(seed: number, a: number, b: number, c: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const v of [a, b, c]) {
    h = Math.imul(h ^ (v >>> 0), 0x85ebca6b) >>> 0;
    h = (h ^ (h >>> 13)) >>> 0;
    h = Math.imul(h, 0xc2b2ae35) >>> 0;
    h = (h ^ (h >>> 16)) >>> 0;
  }
  return h / 2 ** 32;
}
