/**
 * A vector cube as the CSV that CHAP (DHIS2's climate and health modelling platform) reads: a header
 * `time_period,location,<a column per band>`, one row per location and period, sorted by location, then period.
 * Periods are written in CHAP's forms (`2024-01`, `2024-W05`, `2024-01-31`); the location is the geometry's
 * feature id (else its label). `save_result` options:
 *   period_type   daily | weekly | monthly; inferred from the labels otherwise (`period-labels.ts`)
 *   continuity    error (default) | warn | ignore: what a gap is (a period missing between the first and the last,
 *                 or a location without a finite value in a period) does: refuse, write it empty and warn, or
 *                 write it empty
 */
import { formatPeriod, nextPeriod, parsePeriod, type PeriodType } from '../../periods/index.ts';
import type { DataCube } from '../cube/cube.ts';
import { invalidArgument, ProcessingError } from '../errors.ts';
import { formatValue } from './dhis2-json.ts';
import { periodStarts, timeAndBands } from './period-labels.ts';
import { featureIds, field, otherCells, vectorCells } from './vector.ts';

const FORMAT = 'chap-csv';
export const CHAP_PERIOD_TYPES = ['daily', 'weekly', 'monthly'] as const satisfies readonly PeriodType[];
export const CONTINUITY_POLICIES = ['error', 'warn', 'ignore'] as const;
type Continuity = (typeof CONTINUITY_POLICIES)[number];
/** Periods from the first to the last that a file may span, so that a stray label cannot ask for millions of rows. */
const MAX_PERIODS = 100_000;

const invalid = (why: string) => invalidArgument('save_result', 'options', `${FORMAT}: ${why}`);

function continuityOf(given: unknown): Continuity {
  if (given === undefined) return 'error';
  if (!CONTINUITY_POLICIES.includes(given as Continuity))
    throw invalid(`continuity must be one of ${CONTINUITY_POLICIES.join(', ')}`);
  return given as Continuity;
}

/**
 * Every period from the first label's to the last's, in order, each with the index of its label (-1 for none).
 * Labels are instants anywhere in their period (a week's Thursday names the week).
 */
function periodAxis(type: PeriodType, starts: number[], labels: readonly unknown[]) {
  const labelOf = new Map<string, number>();
  starts.forEach((t, i) => {
    const name = formatPeriod({ type, start: new Date(t) });
    const other = labelOf.get(name);
    if (other !== undefined)
      throw new ProcessingError(
        'FormatUnsuitable',
        `The temporal labels '${String(labels[other])}' and '${String(labels[i])}' are one ${type} period (${name}).`,
      );
    labelOf.set(name, i);
  });
  const periodOf = (t: number) => parsePeriod(type, formatPeriod({ type, start: new Date(t) }));
  const last = periodOf(Math.max(...starts)).start.getTime();
  const axis: { name: string; label: number }[] = [];
  for (let period = periodOf(Math.min(...starts)); period.start.getTime() <= last; period = nextPeriod(period)) {
    if (axis.length === MAX_PERIODS)
      throw new ProcessingError('FormatUnsuitable', `A ${FORMAT} file spans at most ${MAX_PERIODS} periods.`);
    const name = formatPeriod(period);
    axis.push({ name, label: labelOf.get(name) ?? -1 });
  }
  return axis;
}

export async function vectorChapCsv(
  cube: DataCube,
  maxCells: number,
  signal?: AbortSignal,
  options: Record<string, unknown> = {},
  warn?: (message: string) => void,
): Promise<string> {
  const continuity = continuityOf(options.continuity);
  const { time, band } = timeAndBands(cube, FORMAT);
  const columns = band ? band.labels.map(String) : ['value'];
  const taken = columns.find((c) => c === 'time_period' || c === 'location');
  if (taken) throw new ProcessingError('FormatUnsuitable', `A band named '${taken}' collides with a ${FORMAT} column.`);
  const { type, starts } = periodStarts(time.labels, options.period_type, CHAP_PERIOD_TYPES, invalid);
  if (!(CHAP_PERIOD_TYPES as readonly string[]).includes(type))
    throw new ProcessingError(
      'FormatUnsuitable',
      `The temporal labels are ${type} periods; ${FORMAT} takes ${CHAP_PERIOD_TYPES.join(', ')} ones: aggregate them first.`,
    );
  const periods = periodAxis(type, starts, time.labels);

  const found = await vectorCells(cube, FORMAT, maxCells, signal);
  const { names, cells } = otherCells(cube, found);
  const [timeAt, bandAt] = [names.indexOf(time.name), band ? names.indexOf(band.name) : -1];
  // The offset of each (time label, column) within a geometry's cells.
  const offsets = time.labels.map(() => new Array<number>(columns.length));
  const timeIndex = new Map(time.labels.map((label, i) => [String(label), i]));
  for (const c of cells)
    offsets[timeIndex.get(c.labels[timeAt]!)!]![bandAt >= 0 ? columns.indexOf(c.labels[bandAt]!) : 0] = c.offset;

  const locations = featureIds(cube, found.geometry)
    .map((id, g) => ({ id, base: g * found.strides[found.geometry]! }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const duplicate = locations.find((l, i) => i > 0 && locations[i - 1]!.id === l.id);
  if (duplicate) throw new ProcessingError('FormatUnsuitable', `Two geometries are location '${duplicate.id}'.`);

  let gaps = 0;
  let first: string | undefined;
  const gap = (what: string) => {
    gaps++;
    first ??= what;
  };
  for (const p of periods) if (p.label < 0) gap(`period ${p.name} has no time step`);
  const rows = [['time_period', 'location', ...columns].map(field).join(',')];
  for (const { id, base } of locations)
    for (const period of periods) {
      const values = columns.map((column, k) => {
        const value = period.label < 0 ? NaN : found.values[base + offsets[period.label]![k]!]!;
        if (Number.isFinite(value)) return formatValue(value);
        if (period.label >= 0) gap(`location '${id}' has no ${column} in ${period.name}`);
        return '';
      });
      rows.push([period.name, id, ...values].map(field).join(','));
    }
  if (first !== undefined) {
    if (continuity === 'error')
      throw new ProcessingError(
        'FormatUnsuitable',
        `The data has gaps (the first: ${first}); ${FORMAT} with continuity 'error' refuses them: fill them, or set continuity to 'warn' or 'ignore'.`,
      );
    if (continuity === 'warn')
      warn?.(`${FORMAT}: ${gaps} ${gaps === 1 ? 'gap' : 'gaps'} written as empty values (the first: ${first}).`);
  }
  return `${rows.join('\r\n')}\r\n`;
}
