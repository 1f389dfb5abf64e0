import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../graph/limits.ts';
import type { ProcessContext } from '../process.ts';
import { builtInRegistry } from '../registry.ts';
import { LabeledArray } from '../values/labeled-array.ts';
import { GATHERED, STREAMING } from './streaming.ts';

const registry = builtInRegistry();
const context: ProcessContext = {
  limits: DEFAULT_LIMITS,
  signal: undefined,
  node: 'test',
  services: {},
  processes: registry,
};

/** A deterministic pseudo-random series with nodata (NaN) and the odd infinity. */
function series(seed: number, length: number, booleans = false): number[] {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length }, () => {
    const r = next();
    if (r < 0.15) return NaN;
    if (booleans) return r < 0.55 ? 0 : 1;
    if (r > 0.98) return r > 0.99 ? Infinity : -Infinity;
    return Math.round((next() - 0.5) * 2000) / 10;
  });
}

const scalar = (values: number[], booleans: boolean) =>
  values.map((v) => (Number.isNaN(v) ? null : booleans ? v === 1 : v));
const cell = (v: unknown) => (v === null ? NaN : typeof v === 'boolean' ? (v ? 1 : 0) : (v as number));
const close = (a: number, b: number) =>
  (Number.isNaN(a) && Number.isNaN(b)) || a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

describe('streaming reducers', () => {
  const cases = Object.keys(STREAMING).flatMap((id) =>
    (id === 'array_element'
      ? [{ index: 0 }, { index: 3 }, { label: 'd' }, { index: 40, return_nodata: true }]
      : id === 'count'
        ? [{ condition: null }, { condition: true }]
        : [{ ignore_nodata: true }, { ignore_nodata: false }]
    ).map((constants) => [id, constants] as const),
  );

  it.each(cases)(
    '%s %j streams, split at any position and merged, to what the scalar process gives',
    async (id, constants) => {
      const booleans = id === 'all' || id === 'any';
      const labels = Array.from({ length: 24 }, (_, i) => String.fromCharCode(97 + i));
      for (let seed = 1; seed <= 40; seed++) {
        const cells = 3;
        const columns = Array.from({ length: cells }, (_, c) =>
          series(seed * 7 + c, seed % 5 === 0 ? 0 : 24, booleans),
        );
        const length = columns[0]!.length;
        const make = () => STREAMING[id]!(constants, booleans ? 'boolean' : 'number', labels.slice(0, length))!;
        const reducer = make();
        const split = seed % length || 1;
        const first = reducer.init(cells);
        const second = reducer.init(cells);
        for (let p = 0; p < length; p++) {
          const values = columns.map((col) => col[p]!);
          reducer.update(p < split || !reducer.merge ? first : second, 0, values, p);
        }
        if (reducer.merge) reducer.merge(first, second);
        const out = new Float64Array(cells);
        const outcome = (f: () => unknown) => {
          try {
            return f();
          } catch (err) {
            return (err as { code?: string }).code ?? String(err);
          }
        };
        const streamed = outcome(() => reducer.finish(first, out, 0));
        for (let c = 0; c < cells; c++) {
          const data = new LabeledArray(labels.slice(0, length), scalar(columns[c]!, booleans));
          const args: Record<string, unknown> = { data, ...constants };
          for (const p of registry.get(id)!.description.parameters)
            if (!(p.name in args) && 'default' in p) args[p.name] = p.default;
          let expected: unknown;
          try {
            expected = cell(await registry.get(id)!.run(args, context));
          } catch (err) {
            expected = (err as { code: string }).code;
          }
          if (typeof expected === 'string') expect(streamed).toBe(expected);
          else
            expect(close(out[c]!, expected as number), `${id} seed ${seed} cell ${c}: ${out[c]} vs ${expected}`).toBe(
              true,
            );
        }
      }
    },
  );

  it.each([{ ignore_nodata: true }, { ignore_nodata: false }])(
    'median %j gathered matches the scalar median',
    (constants) => {
      const median = GATHERED.median!(constants, 'number')!;
      for (let seed = 1; seed <= 40; seed++) {
        const values = series(seed, seed % 7);
        const expected = cell(registry.get('median')!.run({ data: scalar(values, false), ...constants }, context));
        expect(close(median(Float64Array.from(values)), expected)).toBe(true);
      }
    },
  );
});
