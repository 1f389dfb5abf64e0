/**
 * Which days of a dataset changed since the version a table was computed from: the days each later version's run
 * fetched (its `requestScope`, the only days a union ingestion rewrites), and every day past the end of the table.
 * Undefined when that cannot be known (the table's version is no longer listed, or a later version does not say
 * what it fetched): the table is then computed whole.
 */
import type { Dataset } from '../resources/dataset/schema.ts';

/** A scope bound in the dataset-native form `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, which a day's prefix compares to. */
const NATIVE = /^\d{4}(-\d{2}(-\d{2})?)?$/;

export function changedDays(
  dataset: Dataset,
  since: { sourceVersion: string; end: string | undefined },
): ((day: string) => boolean) | undefined {
  const versions = dataset.status?.versions ?? [];
  const from = versions.find((v) => v.id === since.sourceVersion);
  const current = versions.find((v) => v.id === dataset.status?.currentVersion);
  if (!from || !current) return undefined;
  const later = versions.filter((v) => v.createdAt > from.createdAt && v.createdAt <= current.createdAt);
  const scopes: { start: string; end: string }[] = [];
  for (const version of later) {
    const { start, end } = version.requestScope ?? {};
    if (!start || !end || !NATIVE.test(start) || !NATIVE.test(end)) return undefined;
    scopes.push({ start, end });
  }
  return (day) =>
    (since.end !== undefined && day > since.end) ||
    scopes.some(({ start, end }) => day.slice(0, start.length) >= start && day.slice(0, end.length) <= end);
}
