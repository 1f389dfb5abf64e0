/**
 * The table of current headlines at the top of docs/performance.md, which `make bench` rewrites between two markers:
 * one row per Headline, with the median and range of its ratios, the machine's load when its section ran and the
 * date. A row below its goal says "not met". A run of some sections replaces their rows only: the whole bench takes
 * hours here, so an idle machine may measure it a few sections at a time, and each row keeps its own date and load.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { Headline } from './headline.ts';
import { median, medianRange, times } from './summary.ts';

export const TABLE_START = '<!-- make bench: current figures, start (written by bench/run.ts) -->';
export const TABLE_END = '<!-- make bench: current figures, end -->';

/** A Headline as its section measured it: the 1-minute load average at the section's start and end, and when. */
export interface MeasuredHeadline extends Headline {
  /** The name of the `make bench` section that measured it (`BENCH_SECTIONS`). */
  section: string;
  load: [number, number];
  date: string;
}

const cell = (text: string) => text.replaceAll('|', '\\|');

function goalCell({ goal, ratios }: Headline): string {
  if (goal === undefined) return '-';
  return `${times(goal)}: ${median(ratios) >= goal ? 'met' : `**not met** (${times(median(ratios))})`}`;
}

const HEADER = [
  '| section | figure | peer and its configuration | ratio, median (range) | goal | runs | load, start / end | date | command |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
];

/** A row as a Markdown line; the ratio is the peer's cost over Stratus's, above 1 when Stratus is faster. */
function headlineLine(row: MeasuredHeadline): string {
  return (
    `| ${cell(row.section)} | ${cell(row.figure)} | ${cell(row.peer)} | ${medianRange(row.ratios, times)} | ` +
    `${goalCell(row)} | ${row.ratios.length} | ${row.load.map((l) => l.toFixed(2)).join(' / ')} | ${row.date} | ` +
    `\`${row.command}\` |`
  );
}

/** The section named by a row line of the table, or undefined for any other line. */
function sectionOfLine(line: string): string | undefined {
  if (!line.startsWith('| ') || HEADER.includes(line)) return undefined;
  const end = line.search(/[^\\] \| /);
  return end < 0 ? undefined : line.slice(2, end + 1).replaceAll('\\|', '|');
}

/**
 * The table's lines, sections in `order`: the rows measured now for the sections in `rows`, the lines of `previous`
 * (the table as it stands) for the others. A section with no rows either way is named on a line below the table.
 */
export function headlineTable(rows: MeasuredHeadline[], order: string[], previous: string[] = []): string[] {
  const lines = order.flatMap((section) => {
    const measured = rows.filter((row) => row.section === section);
    if (measured.length > 0) return measured.map(headlineLine);
    return previous.filter((line) => sectionOfLine(line) === section);
  });
  const unmeasured = order.filter((section) => !lines.some((line) => sectionOfLine(line) === section));
  const note = unmeasured.length > 0 ? ['', `Not measured by \`make bench\` yet: ${unmeasured.join(', ')}.`] : [];
  return [...HEADER, ...lines, ...note];
}

/** The lines between the markers of `page`, empty when it has none. */
export function tableOf(page: string): string[] {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  return start >= 0 && end > start ? page.slice(start + TABLE_START.length, end).split('\n') : [];
}

/** `page` with the text between the markers replaced by `table`; the markers are added at the top when missing. */
export function withTable(page: string, table: string[]): string {
  const block = [TABLE_START, ...table, TABLE_END].join('\n');
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start >= 0 && end > start) return page.slice(0, start) + block + page.slice(end + TABLE_END.length);
  const [title, ...rest] = page.split('\n\n');
  return [title, block, ...rest].join('\n\n');
}

/** Writes the rows of the sections just run into the table of `file`, keeping the other sections' rows. */
export async function writeHeadlineTable(file: string, rows: MeasuredHeadline[], order: string[]): Promise<void> {
  const page = await readFile(file, 'utf8');
  await writeFile(file, withTable(page, headlineTable(rows, order, tableOf(page))));
}
