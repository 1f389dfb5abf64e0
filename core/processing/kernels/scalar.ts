/**
 * What compiled kernels share with the scalar forms of processes: the numeric helpers kernel expressions call
 * (`h.<name>`) and the rendering of a constant into an expression.
 */

/** A number, boolean or null as a kernel literal (NaN for null, 0/1 for booleans). */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NaN';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value !== 'number') throw new Error(`not a kernel literal: ${typeof value}`);
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '(-Infinity)';
  if (Object.is(value, -0)) return '(-0)';
  return value < 0 ? `(${value})` : String(value);
}

/** Round half to even at `p` decimals (negative `p`: powers of ten), as IEEE 754 and openEO's `round`. */
export function roundHalfEven(x: number, p: number): number {
  if (!Number.isFinite(x)) return x;
  const scaled = p >= 0 ? x * 10 ** p : x / 10 ** -p;
  let rounded = Math.round(scaled);
  if (Math.abs(scaled % 1) === 0.5) rounded = 2 * Math.round(scaled / 2);
  return p >= 0 ? rounded / 10 ** p : rounded * 10 ** -p;
}

/**
 * Remainder with the sign of the divisor. An infinite divisor leaves a finite dividend unchanged, as C's fmod
 * and the openEO test vectors have it (`mod(2, -Infinity)` is 2).
 */
export function floorMod(x: number, y: number): number {
  // A zero divisor gives the infinities or NaN, which the description allows instead of DivisionByZero.
  if (y === 0) return x === 0 || Number.isNaN(x) ? NaN : x > 0 ? Infinity : -Infinity;
  const r = x % y;
  return r !== 0 && Number.isFinite(y) && r < 0 !== y < 0 ? r + y : r;
}

export function linearScale(x: number, inMin: number, inMax: number, outMin: number, outMax: number): number {
  const clipped = Math.min(Math.max(x, Math.min(inMin, inMax)), Math.max(inMin, inMax));
  return ((clipped - inMin) / (inMax - inMin)) * (outMax - outMin) + outMin;
}
