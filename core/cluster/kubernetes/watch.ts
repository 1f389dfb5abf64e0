import type { KindRef, KubeObject } from '../objects.ts';
import type { WatchEvent, WatchOptions } from '../port.ts';
import { WatchQueue } from '../watch-queue.ts';
import { collectionPath } from './paths.ts';
import { apiErrorFromStatus, parseStatus, type RestClient, type StatusBody } from './rest.ts';

type WireEvent =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: Record<string, unknown> }
  | { type: 'ERROR'; object: StatusBody };

/**
 * One watch request as an async iterable. The server ends a watch after its timeout, and then the iterable
 * ends too; an `ERROR` event (410 Gone when the resourceVersion left the server's history) or a failing
 * request is thrown to the consumer after the events that came before it. Resuming is the caller's part.
 */
export function watchKind<T extends KubeObject>(
  rest: RestClient,
  kind: KindRef,
  options: WatchOptions,
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
  else void stream(rest, kind, options, abort.signal, queue);
  return queue as AsyncIterable<WatchEvent<T>>;
}

async function stream(
  rest: RestClient,
  kind: KindRef,
  options: WatchOptions,
  signal: AbortSignal,
  queue: WatchQueue,
): Promise<void> {
  try {
    const response = await rest.send({
      method: 'GET',
      path: collectionPath(kind, options.namespace),
      query: {
        watch: 'true',
        resourceVersion: options.resourceVersion,
        labelSelector: options.labelSelector,
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
    if (signal.aborted) queue.close();
    else queue.fail(err);
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
