/**
 * Temporal aggregation: `aggregate_temporal` (given intervals, times of day included), `aggregate_temporal_period`
 * (calendar periods, every period between the first and the last label), `climatological_normal` (the mean per
 * period of the year over a climatology period) and `anomaly` (data minus the normal of its period). Each is a
 * grouped streaming reduction of the temporal dimension.
 */
import { alignTo } from '../../cube/align.ts';
import { DataCube, withoutUnits } from '../../cube/cube.ts';
import { MapSource } from '../../cube/sources/map.ts';
import { ReduceSource } from '../../cube/sources/reduce.ts';
import { ProcessingError, invalidArgument } from '../../errors.ts';
import type { Callback } from '../../evaluate/callback.ts';
import { reducerPlan, streamingPlan, type ReducerPlan } from '../../kernels/reducer-plan.ts';
import { STREAMING } from '../../kernels/streaming.ts';
import type { Args, ProcessContext, ProcessDefinition } from '../../process.ts';
import { parseInstant, parseTimeOfDay } from '../../values/datetime.ts';
import type { Label } from '../../values/labeled-array.ts';
import { labelInstants } from './filters.ts';
import { temporalAxis } from './helpers.ts';
import { PERIODS, periodLabel, periodOfYear, periodOrdinal, periodsOfYear, type Period } from './periods.ts';

/** The cube with its temporal dimension `axis` reduced per group into labels `labels`. */
function aggregateGroups(
  cube: DataCube,
  axis: number,
  groups: number[][],
  labels: readonly Label[],
  plan: ReducerPlan,
  { keepUnits }: { keepUnits: boolean },
): DataCube {
  const dimensions = cube.dimensions.map((d, i) => (i === axis ? { ...d, labels } : d));
  const chunkShape = cube.metadata.chunkShape.map((c, i) =>
    i === axis ? Math.max(1, Math.min(labels.length, 64)) : c,
  );
  return new DataCube(
    new ReduceSource(
      cube,
      axis,
      plan,
      {
        ...(keepUnits ? cube.metadata : withoutUnits(cube.metadata)),
        dimensions,
        chunkShape,
        cellType: plan.resultKind === 'boolean' ? 'boolean' : 'number',
      },
      groups,
    ),
  );
}

function instantsOf(cube: DataCube, axis: number, process: string): number[] {
  const instants = labelInstants(cube.dimensions[axis]!.labels);
  if (instants.some((t) => Number.isNaN(t)))
    throw invalidArgument(
      process,
      'data',
      `the labels of temporal dimension '${cube.dimensions[axis]!.name}' are not all dates`,
    );
  return instants;
}

function aggregateTemporal(
  { data, intervals, reducer, labels, dimension, context }: Args,
  processContext: ProcessContext,
): DataCube {
  const cube = data as DataCube;
  const axis = temporalAxis(cube, dimension as string | null);
  const list = intervals as (string | null)[][];
  const given = labels as Label[];
  if (given.length > 0 && given.length !== list.length)
    throw invalidArgument('aggregate_temporal', 'labels', `${given.length} labels for ${list.length} intervals`);
  const instants = instantsOf(cube, axis, 'aggregate_temporal');
  const seconds = instants.map((t) => (((t / 1000) % 86_400) + 86_400) % 86_400);
  const groups = list.map(([start, end]) => {
    const times = [start, end].map((v) => (v === null || v === undefined ? null : parseTimeOfDay(v)));
    if (times.every((t) => t !== undefined && t !== null)) {
      // Times of day: an interval whose end is before its start wraps over midnight.
      const [a, b] = times as [number, number];
      if (a === b) throw new ProcessingError('TemporalExtentEmpty', 'The temporal interval is empty.');
      return seconds.flatMap((s, i) => ((a < b ? s >= a && s < b : s >= a || s < b) ? [i] : []));
    }
    const [lo, hi] = [start, end].map((v, k) => {
      if (v === null || v === undefined) return k === 0 ? -Infinity : Infinity;
      const t = parseInstant(v);
      if (t === undefined)
        throw invalidArgument('aggregate_temporal', 'intervals', `not a date, date-time or time: ${v}`);
      return t;
    });
    if (!(hi! > lo!))
      throw new ProcessingError(
        'TemporalExtentEmpty',
        'The temporal extent is empty: the end must be after the start.',
      );
    return instants.flatMap((t, i) => (t >= lo! && t < hi! ? [i] : []));
  });
  const outLabels = given.length > 0 ? given : list.map(([start, end]) => (start ?? end) as Label);
  if (new Set(outLabels).size !== outLabels.length)
    throw new ProcessingError(
      'DistinctDimensionLabelsRequired',
      'The dimension labels have duplicate values. Distinct labels must be specified.',
    );
  const plan = reducerPlan(reducer as Callback, cube.metadata.cellType, context, processContext);
  return aggregateGroups(cube, axis, groups, outLabels, plan, { keepUnits: false });
}

function aggregateTemporalPeriod(
  { data, period, reducer, dimension, context }: Args,
  processContext: ProcessContext,
): DataCube {
  const cube = data as DataCube;
  const axis = temporalAxis(cube, dimension as string | null);
  const ordinals = instantsOf(cube, axis, 'aggregate_temporal_period').map((t) => periodOrdinal(period as Period, t));
  // Loops, not Math.min(...ordinals): a long series would pass too many arguments.
  const first = ordinals.reduce((a, b) => Math.min(a, b), Infinity);
  const count = ordinals.length === 0 ? 0 : ordinals.reduce((a, b) => Math.max(a, b), -Infinity) - first + 1;
  if (count > processContext.limits.maxArrayLength)
    throw invalidArgument('aggregate_temporal_period', 'period', `${count} periods are too many`);
  const groups: number[][] = Array.from({ length: count }, () => []);
  ordinals.forEach((o, i) => groups[o - first]!.push(i));
  const labels = groups.map((_, k) => periodLabel(period as Period, first + k));
  const plan = reducerPlan(reducer as Callback, cube.metadata.cellType, context, processContext);
  return aggregateGroups(cube, axis, groups, labels, plan, { keepUnits: false });
}

type NormalPeriod = 'day' | 'month' | 'season' | 'tropical-season' | 'climatology-period';

function climatologicalNormal({ data, period, climatology_period }: Args): DataCube {
  const cube = data as DataCube;
  const axis = temporalAxis(cube, null);
  const [y1, y2] = (climatology_period as number[]).map(Number) as [number, number];
  if (y2 < y1) throw new ProcessingError('TemporalExtentEmpty', 'The climatology period ends before it starts.');
  const p = period as NormalPeriod;
  // Seasons that start in the year before the period count when the data has them; a season left incomplete
  // at the end of the period never does.
  const start = Date.UTC(
    p === 'season' ? y1 - 1 : p === 'tropical-season' ? y1 - 1 : y1,
    p === 'season' ? 11 : p === 'tropical-season' ? 10 : 0,
    1,
  );
  const end = Date.UTC(
    p === 'season' ? y2 : p === 'tropical-season' ? y2 : y2 + 1,
    p === 'season' ? 11 : p === 'tropical-season' ? 10 : 0,
    1,
  );
  const labels = p === 'climatology-period' ? ['climatology-period'] : periodsOfYear(p);
  const index = new Map(labels.map((l, i) => [l, i]));
  const groups: number[][] = labels.map(() => []);
  instantsOf(cube, axis, 'climatological_normal').forEach((t, i) => {
    if (t < start || t >= end) return;
    const key = p === 'climatology-period' ? 'climatology-period' : periodOfYear(p, t);
    if (key !== undefined) groups[index.get(key)!]!.push(i);
  });
  const mean = STREAMING.mean!;
  return aggregateGroups(
    cube,
    axis,
    groups,
    labels,
    streamingPlan((l) => mean({ ignore_nodata: true }, 'number', l)!),
    // A mean keeps the units of what it averages.
    { keepUnits: true },
  );
}

/** The normals label a data label stands for, for a period (`2024-03` -> `03` for months). */
export function normalKey(label: Label, period: string): string | undefined {
  const text = String(label);
  if (period === 'single-period' || period === 'climatology-period') return undefined;
  const instant = parseInstant(text);
  if (instant !== undefined && /T|^\d{4}-\d{2}-\d{2}$/.test(text)) {
    // A date: its period of the year (or its year, decade).
    if (period === 'day' || period === 'month' || period === 'season' || period === 'tropical-season')
      return periodOfYear(period, instant);
    if (period === 'year' || period === 'decade' || period === 'decade-ad')
      return periodLabel(period, periodOrdinal(period, instant));
    const full = periodLabel(period as Period, periodOrdinal(period as Period, instant));
    return full.slice(full.indexOf('-') + 1);
  }
  if (period === 'year' || period === 'decade' || period === 'decade-ad') return text;
  const dash = text.indexOf('-');
  return dash < 0 ? undefined : text.slice(dash + 1);
}

function anomaly({ data, normals, period }: Args): DataCube {
  const cube = data as DataCube;
  const base = normals as DataCube;
  const axis = temporalAxis(cube, null);
  const normalAxis = temporalAxis(base, null);
  const normalLabels = base.dimensions[normalAxis]!.labels.map(String);
  const single = period === 'single-period' || period === 'climatology-period';
  if (single && normalLabels.length !== 1)
    throw invalidArgument(
      'anomaly',
      'normals',
      `period '${period as string}' needs normals with a single temporal label`,
    );
  const map = Int32Array.from(cube.dimensions[axis]!.labels, (label) => {
    if (single) return 0;
    const key = normalKey(label, period as string);
    return key === undefined ? -1 : normalLabels.indexOf(key);
  });
  // The normals, renamed onto the data's temporal dimension, then aligned by label elsewhere.
  const dataTime = cube.dimensions[axis]!;
  const renamed = new DataCube({
    metadata: {
      ...base.metadata,
      dimensions: base.dimensions.map((d, i) => (i === normalAxis ? { ...d, name: dataTime.name } : d)),
    },
    readChunk: (index, signal) => base.source.readChunk(index, signal),
  });
  const aligned = alignTo(renamed, cube.dimensions, cube.metadata.chunkShape, { [dataTime.name]: map });
  return new DataCube(
    new MapSource([cube, aligned], { ...cube.metadata, cellType: 'number' }, ([d, n], out) => {
      for (let i = 0; i < out.length; i++) out[i] = d![i]! - n![i]!;
    }),
  );
}

export const temporalProcesses: ProcessDefinition[] = [
  { id: 'aggregate_temporal', run: aggregateTemporal },
  { id: 'aggregate_temporal_period', run: aggregateTemporalPeriod },
  { id: 'climatological_normal', run: climatologicalNormal },
  { id: 'anomaly', run: anomaly },
];

export { PERIODS };
