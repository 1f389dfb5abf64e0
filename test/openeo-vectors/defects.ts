/**
 * Upstream defects: test vectors of `../shared/openeo-processes/tests/` that contradict the process description
 * or their own assets. Each entry says why, checks that the upstream file still has the defect (so the entry
 * goes once upstream fixes it), and corrects the vector; the runner runs the corrected vector, and
 * `defects.test.ts` shows that the uncorrected one is refused or gives another result. A process stays listed
 * only when its defects are clearly the vectors'. docs/processing.md lists them.
 */
import { loadAsset, type Vector } from './load.ts';

export interface UpstreamDefect {
  process: string;
  /** Index in the file's `tests` array. */
  vector: number;
  reason: string;
  /** True while the upstream vector still has the defect. */
  present(vector: Vector): boolean;
  /** The vector as it should read. */
  correct(vector: Vector): Vector;
}

type Json = Record<string, unknown>;

/** Deep copy with every `from_argument` reference renamed to `key`. */
export function renameReferences(value: unknown, key: 'from_parameter' | 'from_node'): unknown {
  if (Array.isArray(value)) return value.map((v) => renameReferences(v, key));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Json).map(([k, v]) => [k === 'from_argument' ? key : k, renameReferences(v, key)]),
  );
}

export function usesFromArgument(value: unknown): boolean {
  return JSON.stringify(value).includes('"from_argument"');
}

const returns =
  (value: unknown) =>
  (vector: Vector): Vector => {
    const { throws: _, ...rest } = vector;
    return { ...rest, returns: value };
  };
const throws =
  (code: string) =>
  (vector: Vector): Vector => {
    const { returns: _, ...rest } = vector;
    return { ...rest, throws: code };
  };
const expects = (value: unknown) => (vector: Vector) => JSON.stringify(vector.returns) === JSON.stringify(value);

/** `count`'s condition written as a bare graph reading `element`, instead of `{"process_graph": ...}` reading `x`. */
function countCondition(vector: Vector): Vector {
  const graph = JSON.parse(
    JSON.stringify(vector.arguments.condition).replaceAll('"from_parameter":"element"', '"from_parameter":"x"'),
  );
  return { ...vector, arguments: { ...vector.arguments, condition: { process_graph: graph } } };
}
const bareCondition = (vector: Vector) => {
  const condition = vector.arguments.condition as Json;
  return !('process_graph' in condition) && JSON.stringify(condition).includes('"element"');
};

const clone = <T>(value: T): T => structuredClone(value);
type Cube = {
  data: unknown[][][];
  dimensions: Record<string, { values: unknown[] }> & unknown[];
  order?: string[];
} & Json;
const cubeArg = (v: Vector, name = 'data') => v.arguments[name] as Cube;
const returned = (v: Vector) => v.returns as Cube;

/**
 * xyb-minimal-int.json5 has 255 (its nodata value) at band `blue`, row 0, column 3, where the expected results
 * were computed from 165, the value there in xyb-enumerated-bands.json5 and in the asset's earlier version.
 */
const int165 = (v: Vector) => (cubeArg(v).data[2]![0] as number[])[3] === 255;
function with165(v: Vector): Vector {
  const copy = clone(v);
  (cubeArg(copy).data[2]![0] as number[])[3] = 165;
  return copy;
}
const INT_165 =
  'xyb-minimal-int.json5 has 255 (its nodata value) at blue/row 0/column 3, but the expected values were computed from 165 (the value in xyb-enumerated-bands.json5 and in the earlier version of the asset); corrected by putting 165 back';

/** The January dates of aggregate_temporal's vectors, for an asset whose timestamps are in June 2020. */
const january = (v: Vector) => JSON.stringify(v.arguments.intervals).includes('2020-01-');
function toJune(v: Vector): Vector {
  const fix = (x: unknown) => JSON.parse(JSON.stringify(x).replaceAll('2020-01-', '2020-06-'));
  return { ...v, arguments: { ...v.arguments, intervals: fix(v.arguments.intervals) }, returns: fix(v.returns) };
}
const JANUARY =
  'The intervals (and the expected labels) are in January 2020, but the timestamps of xyt-more-timestamps.json5 are 1 to 9 June 2020, which the expected values aggregate; corrected to June';
const ROUNDED =
  "The expected means are rounded to two or three decimals (-17.25 for -17.2467) without a `delta`, so the README's default of ten decimals cannot hold; corrected with `delta: 0.01` (one unit of the second decimal)";
const rounded = (v: Vector): Vector => ({ ...v, delta: 0.01 });

/** Inverts a 0/1 mask cube argument. */
function invertedMask(v: Vector): Vector {
  const copy = clone(v);
  const flip = (x: unknown): unknown => (Array.isArray(x) ? x.map(flip) : x === 1 ? 0 : x === 0 ? 1 : x);
  cubeArg(copy, 'mask').data = flip(cubeArg(copy, 'mask').data) as unknown[][][];
  return copy;
}
const maskIsOne = (v: Vector) => JSON.stringify(cubeArg(v, 'mask').data).startsWith('[[1,1,1,1]');
const MASK_INVERTED =
  "`mask` replaces the pixels whose mask value is non-zero or true (the description); the expected values replace those where the mask is 0. Corrected by inverting the mask, which keeps the vector's expectation";

export const UPSTREAM_DEFECTS: readonly UpstreamDefect[] = [
  {
    process: 'array_element',
    vector: 3,
    reason:
      "The label is 'BO2' (letter O) while the array's labels are 'B01', 'B02', 'B03'; the expected 5 is the value of 'B02'.",
    present: (v) => v.arguments.label === 'BO2' && v.returns === 5,
    correct: (v) => ({ ...v, arguments: { ...v.arguments, label: 'B02' } }),
  },
  {
    process: 'array_element',
    vector: 7,
    reason:
      'index -1 violates the schema of `index` (integer, minimum 0), so it is refused upfront with ProcessParameterInvalid as the README says of schema mismatches, not evaluated into ArrayElementNotAvailable.',
    present: (v) => v.arguments.index === -1 && v.throws === 'ArrayElementNotAvailable',
    correct: throws('ProcessParameterInvalid'),
  },
  {
    process: 'aggregate_temporal',
    vector: 5,
    reason: `${JANUARY}. ${ROUNDED}.`,
    present: (v) => january(v) && v.delta === undefined,
    correct: (v) => rounded(toJune(v)),
  },
  {
    process: 'aggregate_temporal',
    vector: 6,
    reason: `${JANUARY}. ${ROUNDED}.`,
    present: (v) => january(v) && v.delta === undefined,
    correct: (v) => rounded(toJune(v)),
  },
  {
    process: 'aggregate_temporal',
    vector: 7,
    reason: `${JANUARY}. ${ROUNDED}.`,
    present: (v) => january(v) && v.delta === undefined,
    correct: (v) => rounded(toJune(v)),
  },
  {
    process: 'aggregate_temporal',
    vector: 8,
    reason: JANUARY,
    present: january,
    correct: toJune,
  },
  {
    process: 'aggregate_temporal',
    vector: 9,
    reason: `\`labels\` is written inside the reducer object instead of as an argument of the process, so the default labels (the interval starts, here both 2020-01-04) clash. ${JANUARY}. ${ROUNDED}.`,
    present: (v) => 'labels' in (v.arguments.reducer as Json) && january(v),
    correct: (v) => {
      const { labels, ...reducer } = v.arguments.reducer as Json;
      const june = rounded(toJune(v));
      return { ...june, arguments: { ...june.arguments, reducer, labels } };
    },
  },
  {
    process: 'aggregate_temporal',
    vector: 10,
    reason:
      "The reducer is `mean`, but the expected values are medians (the vector requires `median`; e.g. -12.23 is the median of the first pixel's five values, 0.002 their mean).",
    present: (v) =>
      JSON.stringify(v.arguments.reducer).includes('"process_id":"mean"') && v.required?.includes('median') === true,
    correct: (v) => ({
      ...v,
      arguments: {
        ...v.arguments,
        reducer: JSON.parse(
          JSON.stringify(v.arguments.reducer).replace('"process_id":"mean"', '"process_id":"median"'),
        ),
      },
    }),
  },
  {
    process: 'aggregate_temporal_period',
    vector: 3,
    reason:
      'Period `hour` labels are YYYY-MM-DD-HH, complete from the first to the last hour: 2020-06-01-00 to 2020-06-01-04 for timestamps from 00:00 to 04:00, the hours 02 and 03 empty. The vector expects day-like labels (2020-06-01-00, 2020-06-02-00, ...) and one empty period.',
    present: (v) => JSON.stringify(returned(v).dimensions).includes('2020-06-02-00'),
    correct: (v) => {
      const copy = clone(v);
      const r = returned(copy);
      (r.dimensions as unknown as Record<string, { values: unknown[] }>).t!.values = [0, 1, 2, 3, 4].map(
        (h) => `2020-06-01-0${h}`,
      );
      r.data.splice(3, 0, clone(r.data[2]!));
      return copy;
    },
  },
  {
    process: 'aggregate_temporal_period',
    vector: 4,
    reason:
      'Period `day` labels are YYYY-DDD (day of the year): 2020-153 for 1 June 2020; the vector expects 2020-06-01-00 (an hour label).',
    present: (v) => JSON.stringify(returned(v).dimensions).includes('2020-06-01-00'),
    correct: (v) => {
      const copy = clone(v);
      (returned(copy).dimensions as unknown as Record<string, { values: unknown[] }>).t!.values = [
        '2020-153',
        '2020-154',
        '2020-155',
        '2020-156',
      ];
      return copy;
    },
  },
  ...[8, 9].map((vector): UpstreamDefect => ({
    process: 'aggregate_temporal_period',
    vector,
    reason:
      "The aggregated dimension is named 't2' in the input (and passed as `dimension`); the result keeps dimension names, but the vector expects 't'.",
    present: (v) => returned(v).order?.[0] === 't' && v.arguments.dimension === 't2',
    correct: (v) => {
      const copy = clone(v);
      const r = returned(copy);
      r.order = ['t2', ...r.order!.slice(1)];
      const dims = r.dimensions as unknown as Record<string, unknown>;
      r.dimensions = Object.fromEntries(
        Object.entries(dims).map(([k, d]) => [k === 't' ? 't2' : k, d]),
      ) as Cube['dimensions'];
      return copy;
    },
  })),
  {
    process: 'apply',
    vector: 1,
    reason:
      'The callback reads `{"from_argument": "x"}`, which is not an openEO reference; `{"from_parameter": "x"}` is meant.',
    present: (v) => usesFromArgument(v.arguments.process),
    correct: (v) => ({
      ...v,
      arguments: { ...v.arguments, process: renameReferences(v.arguments.process, 'from_parameter') },
    }),
  },
  {
    process: 'apply',
    vector: 2,
    reason: INT_165,
    present: int165,
    correct: with165,
  },
  {
    process: 'apply_dimension',
    vector: 1,
    reason: INT_165,
    present: int165,
    correct: with165,
  },
  {
    process: 'apply_dimension',
    vector: 2,
    reason:
      "The cube (xyt-more-timestamps.json5) has no dimension 'bands'; the expected values are the minimum, mean and maximum over its dimension 't', which they replace.",
    present: (v) => v.arguments.dimension === 'bands' && !('bands' in (cubeArg(v).dimensions as unknown as Json)),
    correct: (v) => ({ ...v, arguments: { ...v.arguments, dimension: 't' } }),
  },
  {
    process: 'filter_bands',
    vector: 4,
    reason:
      "The vector asks for ['red', 'blue'] (as vector 3 does) but expects the bands ['blue', 'green'] with their values: the order-keeping case meant ['blue', 'green'].",
    present: (v) =>
      JSON.stringify(v.arguments.bands) === '["red","blue"]' &&
      JSON.stringify(returned(v).dimensions).includes('["blue","green"]'),
    correct: (v) => ({ ...v, arguments: { ...v.arguments, bands: ['blue', 'green'] } }),
  },
  {
    process: 'mask',
    vector: 0,
    reason: MASK_INVERTED,
    present: maskIsOne,
    correct: invertedMask,
  },
  {
    process: 'mask',
    vector: 2,
    reason: `${MASK_INVERTED}. The expected values also replace the nodata pixel at row 2, column 2 (mask 1 there, so kept by the vector's own reading) with -1 in every band, while they keep the nodata pixel at row 0, column 3 (mask 1 too); corrected to nodata, as the row 0 pixel.`,
    present: (v) => maskIsOne(v) && (returned(v).data[0]![2] as number[])[2] === -1,
    correct: (v) => {
      const copy = invertedMask(v);
      for (const band of returned(copy).data) (band[2] as number[])[2] = 255;
      return copy;
    },
  },
  {
    process: 'mask',
    vector: 1,
    reason: `The data argument names assets/xyb-minimal-float.json5, which does not exist; the expected cube is assets/xyt-minimal-float.json5 masked. And: ${MASK_INVERTED}`,
    present: (v) => (v.arguments.data as Json).$ref === 'assets/xyb-minimal-float.json5',
    correct: (v) =>
      invertedMask({ ...v, arguments: { ...v.arguments, data: loadAsset('assets/xyt-minimal-float.json5') } }),
  },
  ...[0, 1].map((vector): UpstreamDefect => ({
    process: 'mask_polygon',
    vector,
    reason:
      'The polygon (near Vienna) does not cover the cube (in Münster), so `inside: true` replaces nothing and `inside: false` replaces everything; vectors 0 and 1 expect the opposite, so their `inside` flags are swapped.',
    present: (v) => (vector === 0 ? v.arguments.inside === true : v.arguments.inside === false),
    correct: (v) => ({ ...v, arguments: { ...v.arguments, inside: !v.arguments.inside } }),
  })),
  {
    process: 'mask_polygon',
    vector: 6,
    reason:
      'xytb-s2-small-masked-inside.json5 leaves 4 pixels inside the polygon unmasked in band nir, the last time step, row 5757475 (columns 404865 to 404895), which every other band and time step masks, as xytb-s2-small-masked-outside.json5 counts them inside; corrected by masking them.',
    present: (v) => (returned(v).data[3]![5]![2] as number[])[3] === 2851,
    correct: (v) => {
      const copy = clone(v);
      const row = returned(copy).data[3]![5]![2] as number[];
      for (let x = 3; x <= 6; x++) row[x] = NaN;
      return copy;
    },
  },
  {
    process: 'merge_cubes',
    vector: 3,
    reason:
      'The overlap resolver reads `{"from_argument": ...}`, which is not an openEO reference; `{"from_parameter": ...}` is meant.',
    present: (v) => usesFromArgument(v.arguments.overlap_resolver),
    correct: (v) => ({
      ...v,
      arguments: { ...v.arguments, overlap_resolver: renameReferences(v.arguments.overlap_resolver, 'from_parameter') },
    }),
  },
  {
    process: 'reduce_dimension',
    vector: 1,
    reason: `The reducer reads the results of its nodes 'red' and 'blue' with \`{"from_argument": ...}\` instead of \`{"from_node": ...}\`. And: ${INT_165}`,
    present: (v) => usesFromArgument(v.arguments.reducer) && int165(v),
    correct: (v) =>
      with165({ ...v, arguments: { ...v.arguments, reducer: renameReferences(v.arguments.reducer, 'from_node') } }),
  },
  ...[3, 4].map((vector): UpstreamDefect => ({
    process: 'rename_dimension',
    vector,
    reason:
      "Renaming keeps a dimension's place, labels and axis; the vector expects the renamed dimension at the other spatial dimension's place with that one's labels, and the old name still present (e.g. x renamed to lon gives t, lon, x).",
    present: (v) => {
      const order = returned(v).order!;
      return order.includes(v.arguments.target as string) && order.includes(v.arguments.source as string);
    },
    correct: (v) => {
      const copy = clone(v);
      const input = cubeArg(copy);
      const r = returned(copy);
      const [source, target] = [v.arguments.source as string, v.arguments.target as string];
      r.order = input.order!.map((n) => (n === source ? target : n));
      const dims = input.dimensions as unknown as Record<string, unknown>;
      r.dimensions = Object.fromEntries(
        Object.entries(dims).map(([k, d]) => [k === source ? target : k, d]),
      ) as Cube['dimensions'];
      return copy;
    },
  })),
  ...[5, 7].map((vector): UpstreamDefect => ({
    process: 'rename_labels',
    vector,
    reason:
      'The new labels are passed as `source` and `target` is missing (it is required); on enumerated labels (0, 1, 2) the expected result renames them to the given labels, i.e. they are the `target`.',
    present: (v) => !('target' in v.arguments) && 'source' in v.arguments,
    correct: (v) => {
      const { source, ...rest } = v.arguments;
      return { ...v, arguments: { ...rest, target: source } };
    },
  })),
  {
    process: 'array_find',
    vector: 6,
    reason: 'The value 3 is the first element of the labeled array, so its zero-based index is 0, not 1.',
    present: (v) => v.arguments.value === 3 && v.returns === 1,
    correct: returns(0),
  },
  {
    process: 'count',
    vector: 4,
    reason:
      "The condition is a bare process graph, not `{\"process_graph\": ...}`, and reads parameter 'element', while `count` passes 'x'.",
    present: bareCondition,
    correct: countCondition,
  },
  {
    process: 'count',
    vector: 5,
    reason:
      "The condition is a bare process graph, not `{\"process_graph\": ...}`, and reads parameter 'element', while `count` passes 'x'.",
    present: bareCondition,
    correct: countCondition,
  },
  {
    process: 'lte',
    vector: 15,
    reason:
      'Infinity <= Infinity is true under IEEE 754, which `lte` follows (and `gte` of the same values is true in its own vectors).',
    present: (v) => v.arguments.x === Infinity && v.arguments.y === Infinity && v.returns === false,
    correct: returns(true),
  },
  {
    process: 'normalized_difference',
    vector: 3,
    reason:
      'The schema of `x` is `number` without `null`, so a nodata `x` is refused upfront with ProcessParameterInvalid (README: schema mismatches are rejected before evaluation).',
    present: (v) => (v.arguments.x as Json | undefined)?.type === 'nodata' && expects({ type: 'nodata' })(v),
    correct: throws('ProcessParameterInvalid'),
  },
  {
    process: 'product',
    vector: 10,
    reason: '1 × -Infinity × 3 × Infinity is -Infinity under IEEE 754; NaN is what `sum` of the same values gives.',
    present: (v) => Number.isNaN(v.returns) && JSON.stringify(v.arguments.data) === '[1,null,3,null]',
    correct: returns(-Infinity),
  },
];

export function defectOf(process: string, vector: number): UpstreamDefect | undefined {
  return UPSTREAM_DEFECTS.find((d) => d.process === process && d.vector === vector);
}
