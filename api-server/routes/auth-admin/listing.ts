import { HttpError } from '../../errors.ts';

/**
 * DHIS2's `fields=` over top-level members: a comma list of member names, `*` or `:all` for every member (the
 * default). A name the record does not have is refused (422) rather than ignored, so a typo does not answer
 * empty objects. Answers the members to keep.
 */
export function selectedFields(fields: string | undefined, members: readonly string[]): readonly string[] {
  if (fields === undefined) return members;
  const names = fields
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  if (names.some((n) => n === '*' || n === ':all')) return members;
  const unknown = names.filter((n) => !members.includes(n));
  if (unknown.length > 0 || names.length === 0) {
    const msg = `fields must name members of ${members.join(', ')} (or *); unknown: ${unknown.join(', ').slice(0, 200) || 'none given'}`;
    throw new HttpError('ValidationFailed', msg, [{ loc: ['query', 'fields'], msg, type: 'invalid_value' }]);
  }
  return names;
}

export function pick<T extends object>(object: T, fields: readonly string[]): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([key]) => fields.includes(key))) as Partial<T>;
}

/** One page of `items` and DHIS2's pager for it. */
export function paged<T>(items: readonly T[], page: number, pageSize: number) {
  return {
    pager: { page, pageSize, pageCount: Math.ceil(items.length / pageSize), total: items.length },
    items: items.slice((page - 1) * pageSize, page * pageSize),
  };
}
