/**
 * The distributions the standardized indices fit: a two-parameter gamma by maximum likelihood (SPI) and a
 * three-parameter log-logistic by probability-weighted moments (SPEI, Vicente-Serrano et al. 2010), with the
 * special functions they need and the standard normal quantile that turns a probability into an index.
 */

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7; relative error near 1e-15). */
export function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lnGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < 9; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Γ(x) for the arguments the log-logistic fit uses (1 ± 1/β with β > 1), where it is positive. */
const gamma = (x: number) => Math.exp(lnGamma(x));

const EPSILON = 1e-15;

/** The regularized lower incomplete gamma function P(a, x): a series below a + 1, a continued fraction above. */
export function gammaP(a: number, x: number): number {
  if (!(x > 0)) return x === 0 ? 0 : NaN;
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 1000 && Math.abs(term) > Math.abs(sum) * EPSILON; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return sum * Math.exp(-x + a * Math.log(x) - lnGamma(a));
  }
  return 1 - gammaQContinuedFraction(a, x);
}

/** Q(a, x) = 1 - P(a, x) for x >= a + 1, by Lentz's continued fraction. */
function gammaQContinuedFraction(a: number, x: number): number {
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return Math.exp(-x + a * Math.log(x) - lnGamma(a)) * h;
}

/** The standard normal distribution function, through Q(1/2, z²/2), accurate in both tails. */
export function normalCdf(z: number): number {
  if (Number.isNaN(z)) return NaN;
  const half = z * z * 0.5;
  const tail = half < 1.5 ? 1 - gammaP(0.5, half) : gammaQContinuedFraction(0.5, half);
  return z < 0 ? 0.5 * tail : 1 - 0.5 * tail;
}

/**
 * The standard normal quantile: Acklam's rational approximation (relative error 1.2e-9) refined by one step of
 * Halley's method against `normalCdf`.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? -Infinity : p === 1 ? Infinity : NaN;
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  let x: number;
  if (p < low || p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(p < low ? p : 1 - p));
    x =
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
    if (p > 1 - low) x = -x;
  } else {
    const q = p - 0.5;
    const r = q * q;
    x =
      ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
      (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  }
  const e = normalCdf(x) - p;
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
  return x - u / (1 + (x * u) / 2);
}

/** ψ(x) and ψ'(x) for x > 0: recurrence up to 6, then their asymptotic series. */
function digammaTrigamma(x: number): [number, number] {
  let psi = 0;
  let psi1 = 0;
  while (x < 6) {
    psi -= 1 / x;
    psi1 += 1 / (x * x);
    x += 1;
  }
  const r = 1 / (x * x);
  psi += Math.log(x) - 0.5 / x - r * (1 / 12 - r * (1 / 120 - r * (1 / 252 - r * (1 / 240 - r / 132))));
  psi1 += 1 / x + r / 2 + (r / x) * (1 / 6 - r * (1 / 30 - r * (1 / 42 - r / 30)));
  return [psi, psi1];
}

export interface GammaFit {
  shape: number;
  scale: number;
}

/**
 * The maximum-likelihood gamma (location 0) of positive `values`: the shape solves ln a − ψ(a) = ln(mean) −
 * mean(ln x) (Newton's method from Thom's estimate), the scale is mean / shape. Undefined when the values do not
 * determine it (fewer than two, or all equal).
 */
export function fitGamma(values: ArrayLike<number>): GammaFit | undefined {
  const n = values.length;
  if (n < 2) return undefined;
  let sum = 0;
  let sumLog = 0;
  for (let i = 0; i < n; i++) {
    sum += values[i]!;
    sumLog += Math.log(values[i]!);
  }
  const mean = sum / n;
  const s = Math.log(mean) - sumLog / n;
  if (!(s > 1e-12)) return undefined;
  let a = (3 - s + Math.sqrt((s - 3) ** 2 + 24 * s)) / (12 * s);
  for (let i = 0; i < 100; i++) {
    const [psi, psi1] = digammaTrigamma(a);
    const step = (Math.log(a) - psi - s) / (1 / a - psi1);
    const next = a - step;
    a = next > 0 ? next : a / 2;
    if (Math.abs(step) < 1e-14 * a) break;
  }
  return { shape: a, scale: mean / a };
}

/** The gamma distribution function at x. */
export function gammaCdf(x: number, { shape, scale }: GammaFit): number {
  return gammaP(shape, x / scale);
}

export interface LogLogisticFit {
  /** Scale α, shape β, location γ: F(x) = 1 / (1 + (α / (x − γ))^β). */
  alpha: number;
  beta: number;
  gamma: number;
}

/**
 * The three-parameter log-logistic of `values` from their probability-weighted moments w0, w1, w2 with the
 * plotting position (i − 0.35) / n, as Vicente-Serrano et al. (2010) fit SPEI. Undefined for fewer than three
 * values or moments that give no distribution (a shape of 1 or less has no finite mean).
 */
export function fitLogLogistic(values: ArrayLike<number>): LogLogisticFit | undefined {
  const n = values.length;
  if (n < 3) return undefined;
  const sorted = Float64Array.from(values).sort();
  const w = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const f = (i + 1 - 0.35) / n;
    for (let s = 0; s < 3; s++) w[s]! += (1 - f) ** s * sorted[i]!;
  }
  const [w0, w1, w2] = w.map((v) => v / n) as [number, number, number];
  const beta = (2 * w1 - w0) / (6 * w1 - w0 - 6 * w2);
  if (!(beta > 1) || !Number.isFinite(beta)) return undefined;
  const g = gamma(1 + 1 / beta) * gamma(1 - 1 / beta);
  const alpha = ((w0 - 2 * w1) * beta) / g;
  if (!(alpha > 0)) return undefined;
  return { alpha, beta, gamma: w0 - alpha * g };
}

/** The log-logistic distribution function at x (0 at or below the location). */
export function logLogisticCdf(x: number, { alpha, beta, gamma: location }: LogLogisticFit): number {
  if (Number.isNaN(x)) return NaN;
  if (x <= location) return 0;
  return 1 / (1 + (alpha / (x - location)) ** beta);
}
