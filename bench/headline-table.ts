/**
 * The table of current headlines at the top of docs/performance.md, which `make bench` rewrites between two markers:
 * one row per Headline, with the median and range of its ratios, the machine's load when its section ran and the
 * date. A row below its goal says "not met".
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { Headline } from './headline.ts';
import { median, medianRange, times } from './summary.ts';

export const TABLE_START = '<!-- make bench: current figures, start (written by bench/run.ts) -->';
export const TABLE_END = '<!-- make bench: current figures, end -->';

/** A Headline as its section measured it: the 1-minute load average at the section's start and end, and when. */
export interface MeasuredHeadline extends Headline {
  load: [number, number];
  date: string;
}

const cell = (text: string) => text.replaceAll('|', '\\|');

function goalCell({ goal, ratios }: Headline): string {
  if (goal === undefined) return '-';
  return `${times(goal)}: ${median(ratios) >= goal ? 'met' : `**not met** (${times(median(ratios))})`}`;
}

/** The table as Markdown lines; the ratio is the peer's cost over Stratus's, above 1 when Stratus is faster. */
export function headlineTable(rows: MeasuredHeadline[]): string[] {
  return [
    '| figure | peer and its configuration | ratio, median (range) | goal | runs | load, start / end | date | command |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${cell(row.figure)} | ${cell(row.peer)} | ${medianRange(row.ratios, times)} | ${goalCell(row)} | ` +
        `${row.ratios.length} | ${row.load.map((l) => l.toFixed(2)).join(' / ')} | ${row.date} | \`${row.command}\` |`,
    ),
  ];
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

export async function writeHeadlineTable(file: string, rows: MeasuredHeadline[]): Promise<void> {
  await writeFile(file, withTable(await readFile(file, 'utf8'), headlineTable(rows)));
}
