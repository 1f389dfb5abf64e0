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

/** The length the response promised: Content-Range's span for a 206, else Content-Length. */
function promisedLength(response: Response): number | undefined {
  const range = /bytes (\d+)-(\d+)\//.exec(response.headers.get('content-range') ?? '');
  if (response.status === 206 && range) return Number(range[2]) - Number(range[1]) + 1;
  const length = response.headers.get('content-length');
  return length === null ? undefined : Number(length);
}

async function attempt(url: string, options: HttpGetOptions, timeoutMs: number): Promise<HttpBody> {
  const headers = { ...options.headers };
  if (options.range) headers.range = `bytes=${options.range.start}-${options.range.end}`;
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])]);
  let response: Response;
  try {
    response = await fetch(url, { headers, signal });
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw new Retryable(
      signal.aborted ? `no answer within ${timeoutMs} ms` : `connection failed (${(err as Error).message})`,
    );
  }
  if (response.status === 404 || response.status === 410)
    throw new RunError('PeriodUnavailable', `${url} is not published (HTTP ${response.status})`);
  if (response.status === 401 || response.status === 403)
    throw new RunError('AuthenticationFailed', `${url} refused the credentials (HTTP ${response.status})`);
  if (response.status === 429 || response.status >= 500) {
    await response.body?.cancel();
    throw new Retryable(`HTTP ${response.status}`);
  }
  if (!response.ok) throw new RunError('UpstreamError', `${url} answered HTTP ${response.status}`);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw new Retryable(`the body broke off (${(err as Error).message})`);
  }
  const promised = promisedLength(response);
  if (promised !== undefined && bytes.length !== promised)
    throw new Retryable(`truncated body: ${bytes.length} of ${promised} bytes`);
  return { status: response.status, headers: response.headers, bytes };
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
