/**
 * Several runs of a benchmark summed up as the tables print them: the median with the range. One run on a shared
 * machine can swing a ratio either way (docs/performance.md records one that moved far with no change),
 * so a headline figure is never a single run.
 */

/** Runs of each bench that `make bench` and the benches run alone take (`BENCH_RUNS`, default 3). */
export const benchRuns = (env: NodeJS.ProcessEnv = process.env) => Number(env.BENCH_RUNS ?? 3);

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** `median (min–max)`, each formatted alike. */
export const medianRange = (values: number[], format: (n: number) => string) =>
  `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;

export const times = (n: number) => `${n.toFixed(2)}x`;

export const round = (n: number) => Math.round(n).toLocaleString('en-US');

/** `runs` runs of `bench`, one after the other. */
export async function repeat<T>(runs: number, bench: (run: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let run = 0; run < runs; run++) results.push(await bench(run));
  return results;
}
