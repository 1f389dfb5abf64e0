/**
 * DHIS2's conventions for the administration APIs of spec 2 (`/api/oAuth2Clients`, `/api/oAuth2Authorizations`,
 * `/api/oAuth2AuthorizationConsents`): `fields=` member selection and the `page`/`pageSize`/`paging` pager.
 */
import { z } from 'zod';

/** `page`, `pageSize` and `paging` of a DHIS2 list query. */
export const dhis2PagingQuery = {
  page: z.coerce.number().int().min(1).default(1).describe('The page shown, from 1.'),
  pageSize: z.coerce.number().int().min(1).max(10_000).default(50).describe('Items per page.'),
  paging: z.enum(['true', 'false']).default('true').describe('false: every item, without a pager.'),
};

export const dhis2FieldsQuery = z
  .string()
  .max(2000)
  .optional()
  .describe(
    'Comma-separated members to return; `*` or `:all` for all; `!member` leaves one out. Unknown members are ignored, as DHIS2 does.',
  );

export const pagerSchema = z
  .object({
    page: z.number().int(),
    pageSize: z.number().int(),
    pageCount: z.number().int(),
    total: z.number().int(),
  })
  .meta({ id: 'Pager', description: 'DHIS2-style pager: the page shown, its size, how many pages and items.' });

/**
 * The members `fields` selects from `members`, in the order of `members`: every member for `*` or `:all`, or
 * when `fields` is absent and there is no `absent` default; but those named with DHIS2's `!` (`*,!created`).
 * Names no member has are ignored, as DHIS2 does.
 */
export function selectedMembers(
  fields: string | undefined,
  members: readonly string[],
  absent?: string,
): readonly string[] {
  const text = fields ?? absent;
  if (text === undefined) return members;
  const names = new Set(
    text
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean),
  );
  const all = names.has('*') || names.has(':all');
  return members.filter((m) => (all || names.has(m)) && !names.has(`!${m}`));
}

/** The `members` of `object` that it has. */
export function pick<T extends object>(object: T, members: readonly string[]): Partial<T> {
  return Object.fromEntries(
    members.filter((m) => (object as Record<string, unknown>)[m] !== undefined).map((m) => [m, object[m as keyof T]]),
  ) as Partial<T>;
}

/** The page of `items` the query asks for, and its pager (none with `paging=false`: every item). */
export function dhis2Page<T>(
  items: readonly T[],
  query: { page: number; pageSize: number; paging: 'true' | 'false' },
): { pager?: z.infer<typeof pagerSchema>; items: readonly T[] } {
  if (query.paging === 'false') return { items };
  const { page, pageSize } = query;
  return {
    pager: { page, pageSize, pageCount: Math.ceil(items.length / pageSize), total: items.length },
    items: items.slice((page - 1) * pageSize, page * pageSize),
  };
}
