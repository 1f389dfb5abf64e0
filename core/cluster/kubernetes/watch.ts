import type { KindRef, KubeObject } from '../objects.ts';
import type { WatchEvent, WatchOptions } from '../port.ts';
import { WatchQueue } from '../watch-queue.ts';
import { collectionPath } from './paths.ts';
import { apiErrorFromStatus, parseStatus, type RestClient, type StatusBody } from './rest.ts';

type WireEvent =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: Record<string, unknown> }
  | { type: 'ERROR'; object: StatusBody };

/**
 * How long a watch lasts. As client-go's reflector does, every watch asks the server to end it after a time drawn
 * at random between `minTimeoutSeconds` and twice it, so that the watches of many clients started together do not
 * all end together; and the client gives up a watch the server has not ended `graceMs` after that time, since a
 * connection that went silent without closing (a half-open TCP connection, a stuck proxy) never delivers the
 * server's end, and the caller would wait on it forever.
 */
export interface WatchTimings {
  minTimeoutSeconds: number;
  graceMs: number;
}

/** client-go's reflector asks for 5 to 10 minutes. */
export const DEFAULT_WATCH_TIMINGS: WatchTimings = { minTimeoutSeconds: 300, graceMs: 30_000 };

/** A watch the client gave up: the server did not end it in time, so its connection is taken for dead. */
export class WatchDeadlineExceeded extends Error {
  constructor(kind: KindRef, timeoutSeconds: number, graceMs: number) {
    super(
      `the watch of ${kind.plural} asked the server to end it after ${timeoutSeconds} s and was not ended ` +
        `${graceMs} ms after that; the connection is taken for dead`,
    );
    this.name = 'WatchDeadlineExceeded';
  }
}

/**
 * One watch request as an async iterable. The server ends a watch after the timeout it was asked for, and then
 * the iterable ends too; an `ERROR` event (410 Gone when the resourceVersion left the server's history), a
 * failing request or the client's deadline (`WatchDeadlineExceeded`) is thrown to the consumer after the events
 * that came before it. Resuming is the caller's part.
 */
export function watchKind<T extends KubeObject>(
  rest: RestClient,
  kind: KindRef,
  options: WatchOptions,
  timings: WatchTimings = DEFAULT_WATCH_TIMINGS,
): AsyncIterable<WatchEvent<T>> {
  const abort = new AbortController();
  const stop = () => queue.close();
  // Callers reuse one signal for watch after watch: each watch takes its listener away when it ends.
  const queue = new WatchQueue(() => {
    abort.abort();
    options.signal?.removeEventListener('abort', stop);
  });
  options.signal?.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted) stop();
  else void stream(rest, kind, options, timings, abort, queue);
  return queue as AsyncIterable<WatchEvent<T>>;
}

async function stream(
  rest: RestClient,
  kind: KindRef,
  options: WatchOptions,
  timings: WatchTimings,
  abort: AbortController,
  queue: WatchQueue,
): Promise<void> {
  const { signal } = abort;
  const timeoutSeconds = Math.floor(timings.minTimeoutSeconds * (1 + Math.random()));
  let expired: WatchDeadlineExceeded | undefined;
  const deadline = setTimeout(
    () => {
      expired = new WatchDeadlineExceeded(kind, timeoutSeconds, timings.graceMs);
      abort.abort();
    },
    timeoutSeconds * 1_000 + timings.graceMs,
  );
  try {
    const response = await rest.send({
      method: 'GET',
      path: collectionPath(kind, options.namespace),
      query: {
        watch: 'true',
        resourceVersion: options.resourceVersion,
        labelSelector: options.labelSelector,
        timeoutSeconds: String(timeoutSeconds),
        allowWatchBookmarks: 'false',
      },
      signal,
    });
    if (!response.ok || !response.body) {
      throw apiErrorFromStatus(parseStatus(await response.text()), response.status);
    }
    for await (const line of lines(response.body)) {
      const event = JSON.parse(line) as WireEvent;
      if (event.type === 'ERROR') throw apiErrorFromStatus(event.object, 500);
      if (event.type === 'BOOKMARK') continue;
      const object = { ...event.object, apiVersion: kind.apiVersion, kind: kind.kind } as KubeObject;
      queue.push({ type: event.type, object });
    }
    queue.close();
  } catch (err) {
    if (expired) queue.fail(expired);
    else if (signal.aborted) queue.close();
    else queue.fail(err);
  } finally {
    clearTimeout(deadline);
  }
}

/** The non-empty lines of a byte stream: the API server sends one JSON event per line. */
async function* lines(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of body) {
    pending += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, end).trim();
      pending = pending.slice(end + 1);
      if (line) yield line;
    }
  }
  if (pending.trim()) yield pending.trim();
}
