/**
 * Canonical JSON: object members sorted by key (UTF-16 code units, as `Array.prototype.sort` compares), no
 * whitespace, members whose value is `undefined` left out as `JSON.stringify` leaves them. Two documents that mean
 * the same text give the same bytes, so their digests compare.
 */
import { createHash } from 'node:crypto';

/** `value` with the members of every object in key order: the form whose `JSON.stringify` is canonical. */
export function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, sorted(object[key])]),
  );
}

export const canonicalJson = (value: unknown): string => JSON.stringify(sorted(value)) ?? 'null';

/** Lower-case hex SHA-256 of the canonical JSON of `value`. */
export const canonicalSha256 = (value: unknown): string =>
  createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
