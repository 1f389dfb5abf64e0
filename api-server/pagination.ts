import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError, type ErrorCode } from './errors.ts';
import type { Representation } from './negotiation.ts';
import { publicBaseUrl } from './public-url.ts';

/**
 * openEO-style pagination of the list routes (docs/pagination.md). Pages are cut by position, not by offset: a
 * continuation token names the last item of the page before (or the first of the page after, for `prev`), so an
 * item created or deleted between two requests neither repeats nor hides any other item.
 */

/** The largest page a client may ask for. */
export const MAX_PAGE_LIMIT = 1_000;
/** The page an HTML list shows when the client names no `limit`: pages are for people. */
export const HTML_PAGE_LIMIT = 100;

export const pageQuerySchema = z.object({
  limit: z
    .string()
    .optional()
    .describe(
      `The most items this page holds, 1 to ${MAX_PAGE_LIMIT}. Absent or empty: every item (openEO), except on ` +
        `the HTML page, which shows ${HTML_PAGE_LIMIT}. A paginated answer's \`links\` has \`next\` (and \`prev\`, ` +
        '`first`) to follow; anything else answers 422 (openEO routes: 400 `PaginationInvalid`).',
    ),
  token: z
    .string()
    .optional()
    .describe(
      'Opaque continuation token from a `next` or `prev` link; one that was not issued answers 422 (openEO ' +
        'routes: 400 `PaginationInvalid`).',
    ),
});

export const pageLinkSchema = z
  .object({ href: z.string(), rel: z.string(), type: z.string().optional() })
  .meta({ id: 'PageLink', description: 'A link of a list: `self`, and `next`, `prev` and `first` when paginated.' });

/** How a list is ordered: by `key`, compared element by element in code-unit order, the whole key unique. */
export interface PageOrder<T> {
  /** The sort key, unique per item and fixed for an item's life (its name, its creation time). */
  key(item: T): string[];
  descending?: boolean;
}

/** Resources in the order of their names (ids). */
export const byName: PageOrder<{ metadata: { name: string } }> = { key: (r) => [r.metadata.name] };

/** Resources newest first (runs, jobs), names breaking ties. */
export const newestFirst: PageOrder<{ metadata: { name: string; creationTimestamp?: string } }> = {
  key: (r) => [r.metadata.creationTimestamp ?? '', r.metadata.name],
  descending: true,
};

/** The `links` member of a paginated list. */
export const pageLinksSchema = z
  .array(pageLinkSchema)
  .describe('`next`, `prev` and `first` of a paginated list (docs/pagination.md); empty when it fits one page.');

const mediaTypes: Record<Representation, string> = { json: 'application/json', html: 'text/html' };

type Cursor = { after: string[] } | { before: string[] };

const cursorSchema = z.union([
  z.strictObject({ after: z.array(z.string()).min(1) }),
  z.strictObject({ before: z.array(z.string()).min(1) }),
]);

const encode = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

function decode(token: string): Cursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,2000}$/.test(token)) return undefined;
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(Buffer.from(token, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function compareKeys(a: string[], b: string[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Sorts items in place into the order a list pages them by. */
export function sortForPaging<T>(items: T[], order: PageOrder<T>): T[] {
  const sign = order.descending ? -1 : 1;
  const keyed = items.map((item) => ({ item, key: order.key(item) }));
  keyed.sort((a, b) => sign * compareKeys(a.key, b.key));
  keyed.forEach(({ item }, i) => (items[i] = item));
  return items;
}

type Invalid = Extract<ErrorCode, 'ValidationFailed' | 'PaginationInvalid'>;

export interface PageOptions {
  /** `server.base.url`, or null to take the public URL from the request (`public-url.ts`). */
  baseUrl: string | null;
  /**
   * The catalogue code a bad `limit` or `token` answers with: `ValidationFailed` (spec 1's 422), or
   * `PaginationInvalid` on openEO routes.
   */
  invalid: Invalid;
  /** What the page is answered as: without `limit`, JSON holds everything and HTML `HTML_PAGE_LIMIT` items. */
  representation: Representation;
}

export interface Page<T> {
  items: T[];
  /** `next`, `prev` and `first`, as absolute URLs; none when the list fits one page. */
  links: { href: string; rel: string; type: string }[];
}

type PagedRequest = Pick<FastifyRequest, 'headers' | 'protocol' | 'host' | 'url'> & {
  query: { limit?: string | undefined; token?: string | undefined };
};

function limitOf(raw: string | undefined, options: PageOptions): number | undefined {
  if (raw === undefined || raw === '') return options.representation === 'html' ? HTML_PAGE_LIMIT : undefined;
  const limit = /^\d{1,7}$/.test(raw) ? Number(raw) : NaN;
  if (limit >= 1 && limit <= MAX_PAGE_LIMIT) return limit;
  throw invalidParameter(
    options,
    'limit',
    `limit must be an integer from 1 to ${MAX_PAGE_LIMIT}, not '${raw.slice(0, 20)}'`,
  );
}

/** A bad `limit` or `token`; the items are the 422 body's, and the openEO envelope has no place for them. */
function invalidParameter(options: PageOptions, name: 'limit' | 'token', msg: string): HttpError {
  return new HttpError(options.invalid, msg, [{ loc: ['query', name], msg, type: 'invalid_value' }]);
}

/** The index of the first item whose key is not before `key` in the list's order (`strict`: after it). */
/**
 * Moves one item of a list sorted in `order` into place: `now` is its current state, undefined when it is gone. Its
 * key is the same in every state, so it is found where it was.
 */
export function placeInOrder<T>(items: T[], order: PageOrder<T>, was: T, now: T | undefined): void {
  const key = order.key(was);
  const at = seek(items, order, key, false);
  const held = at < items.length && compareKeys(order.key(items[at]!), key) === 0;
  if (now === undefined) {
    if (held) items.splice(at, 1);
  } else if (held) items[at] = now;
  else items.splice(at, 0, now);
}

function seek<T>(items: readonly T[], order: PageOrder<T>, key: string[], strict: boolean): number {
  const sign = order.descending ? -1 : 1;
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const c = sign * compareKeys(order.key(items[middle]!), key);
    if (c < 0 || (strict && c === 0)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The page the request's `limit` and `token` ask of `items` (already in `order`: see `sortForPaging`), with links
 * that repeat the request's URL (its other query parameters kept) under the instance's public base URL.
 */
export function paginate<T>(
  request: PagedRequest,
  items: readonly T[],
  order: PageOrder<NoInfer<T>>,
  options: PageOptions,
): Page<T> {
  const limit = limitOf(request.query.limit, options);
  const token = request.query.token;
  const cursor = token === undefined || token === '' ? undefined : decode(token);
  const cursorKey = cursor && ('after' in cursor ? cursor.after : cursor.before);
  if ((token && !cursor) || (cursorKey && items.length > 0 && cursorKey.length !== order.key(items[0]!).length))
    throw invalidParameter(options, 'token', 'token is not a continuation token of this list; start again without it');

  let start = 0;
  let end = items.length;
  if (cursor && 'after' in cursor) start = seek(items, order, cursor.after, true);
  if (cursor && 'before' in cursor) end = seek(items, order, cursor.before, false);
  if (limit !== undefined) {
    if (cursor && 'before' in cursor) start = Math.max(0, end - limit);
    else end = Math.min(end, start + limit);
  }
  const page = items.slice(start, end);

  const url = new URL(request.url, 'http://request');
  const base = publicBaseUrl(request, options.baseUrl);
  const link = (rel: string, next: Cursor | undefined) => {
    const query = new URLSearchParams(url.search);
    query.delete('token');
    if (next) query.set('token', encode(next));
    const search = query.toString();
    return {
      href: `${base}${url.pathname}${search === '' ? '' : `?${search}`}`,
      rel,
      type: mediaTypes[options.representation],
    };
  };
  const links: Page<T>['links'] = [];
  if (end < items.length && page.length > 0) links.push(link('next', { after: order.key(page.at(-1)!) }));
  if (start > 0) {
    // Past the end (an after-token whose items were all deleted) there is no page to come back before.
    if (start < items.length) links.push(link('prev', { before: order.key(items[start]!) }));
    links.push(link('first', undefined));
  }
  return { items: page, links };
}
