import { getGlobalDispatcher, interceptors, request, type Dispatcher } from 'undici';
import { RunError } from '../runs/errors.ts';

export interface HttpGetOptions {
  headers?: Record<string, string>;
  /** Inclusive byte range. */
  range?: { start: number; end: number };
  signal?: AbortSignal;
  /** Per attempt. */
  timeoutMs?: number;
  /** Attempts in all, the first included. */
  attempts?: number;
  /** Backoff before attempt n+1: base * 2^(n-1) ms. */
  backoffMs?: number;
}

export interface HttpBody {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
}

/** Credentials a worker has from the Secrets its source names: HTTP basic, or an API token. */
export type Credentials = { username: string; password: string } | { token: string; scheme: string };

/** The `Authorization` header for credentials; a token is sent as `<scheme> <token>` (e.g. `ApiToken ...`). */
export function authorizationHeader(credentials: Credentials): Record<string, string> {
  if ('token' in credentials) return { authorization: `${credentials.scheme} ${credentials.token}` };
  const pair = Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64');
  return { authorization: `Basic ${pair}` };
}

const DEFAULTS = { timeoutMs: 30_000, attempts: 4, backoffMs: 500 };

class Retryable extends Error {}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/**
 * undici's `request` rather than `fetch`: a COG read is a few range requests per period, and `fetch`'s WHATWG
 * machinery cost several times the CPU per request (measured in docs/performance.md's history, "ingestion CPU").
 * Redirects are followed as `fetch` follows them (at most 20; credentials dropped across origins). No
 * `accept-encoding` is sent, so bodies arrive as stored: the length check below and byte ranges hold.
 */
let client: Dispatcher | undefined;
const dispatcher = () => (client ??= getGlobalDispatcher().compose(interceptors.redirect({ maxRedirections: 20 })));

type ResponseHeaders = Dispatcher.ResponseData['headers'];
const header = (headers: ResponseHeaders, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** The length the response promised: Content-Range's span for a 206, else Content-Length. */
function promisedLength(status: number, headers: ResponseHeaders): number | undefined {
  const range = /bytes (\d+)-(\d+)\//.exec(header(headers, 'content-range') ?? '');
  if (status === 206 && range) return Number(range[2]) - Number(range[1]) + 1;
  const length = header(headers, 'content-length');
  return length === undefined ? undefined : Number(length);
}

/**
 * An attempt's signal: one controller aborted by the caller's signal or by a timer the attempt clears when it
 * ends. `AbortSignal.any([AbortSignal.timeout(...)])` cost about a tenth of a range read's CPU more, and a COG
 * period makes three reads.
 */
function attemptSignal(timeoutMs: number, outer: AbortSignal | undefined) {
  const controller = new AbortController();
  const state = { signal: controller.signal, timedOut: false, release: () => {} };
  const timer = setTimeout(() => ((state.timedOut = true), controller.abort()), timeoutMs);
  const forward = () => controller.abort(outer?.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener('abort', forward, { once: true });
  state.release = () => (clearTimeout(timer), outer?.removeEventListener('abort', forward));
  return state;
}

async function attempt(url: string, options: HttpGetOptions, timeoutMs: number): Promise<HttpBody> {
  const deadline = attemptSignal(timeoutMs, options.signal);
  try {
    return await exchange(url, options, timeoutMs, deadline);
  } finally {
    deadline.release();
  }
}

async function exchange(
  url: string,
  options: HttpGetOptions,
  timeoutMs: number,
  deadline: { signal: AbortSignal; timedOut: boolean },
): Promise<HttpBody> {
  const headers = { ...options.headers };
  if (options.range) headers.range = `bytes=${options.range.start}-${options.range.end}`;
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, { headers, signal: deadline.signal, dispatcher: dispatcher() });
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw new Retryable(
      deadline.timedOut ? `no answer within ${timeoutMs} ms` : `connection failed (${(err as Error).message})`,
    );
  }
  const { statusCode: status, body } = response;
  // A body left unread would hold its connection: every answer but a success is drained.
  if (status < 200 || status >= 300) await body.dump().catch(() => undefined);
  if (status === 404 || status === 410)
    throw new RunError('PeriodUnavailable', `${url} is not published (HTTP ${status})`);
  if (status === 401 || status === 403)
    throw new RunError('AuthenticationFailed', `${url} refused the credentials (HTTP ${status})`);
  if (status === 429 || status >= 500) throw new Retryable(`HTTP ${status}`);
  if (status < 200 || status >= 300) throw new RunError('UpstreamError', `${url} answered HTTP ${status}`);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await body.arrayBuffer());
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw new Retryable(`the body broke off (${(err as Error).message})`);
  }
  const promised = promisedLength(status, response.headers);
  if (promised !== undefined && bytes.length !== promised)
    throw new Retryable(`truncated body: ${bytes.length} of ${promised} bytes`);
  // Most callers read only the bytes (a COG's tiles): the WHATWG Headers are built when first asked for.
  let answer: Headers | undefined;
  return {
    status,
    bytes,
    get headers() {
      return (answer ??= headersOf(response.headers));
    },
  };
}

function headersOf(raw: ResponseHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw))
    for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.append(name, one);
  return headers;
}

/**
 * GET with the retry policy every provider shares: 5xx, 429, timeouts, dropped connections and truncated bodies
 * are retried with exponential backoff; 404 (not published), 401/403 and other 4xx fail at once with a typed
 * error; the last failure names the URL and what went wrong.
 */
export async function httpGet(url: string, options: HttpGetOptions = {}): Promise<HttpBody> {
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const attempts = options.attempts ?? DEFAULTS.attempts;
  const backoffMs = options.backoffMs ?? DEFAULTS.backoffMs;
  let last = '';
  for (let n = 1; n <= attempts; n++) {
    try {
      return await attempt(url, options, timeoutMs);
    } catch (err) {
      if (!(err instanceof Retryable)) throw err;
      last = err.message;
      if (n < attempts) await sleep(backoffMs * 2 ** (n - 1), options.signal);
    }
  }
  throw new RunError('UpstreamUnavailable', `${url} failed after ${attempts} attempts: ${last}`);
}
