import { getEventListeners } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { isApiError } from '../errors.ts';
import type { KindRef } from '../objects.ts';
import type { WatchEvent } from '../port.ts';
import { RestClient } from './rest.ts';
import { DEFAULT_WATCH_TIMINGS, WatchDeadlineExceeded, watchKind } from './watch.ts';

const kind: KindRef = {
  apiVersion: 'contract.stratus.dev/v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  statusSubresource: true,
};

const widget = (name: string, resourceVersion: string) => ({ metadata: { name, namespace: 'ns', resourceVersion } });
const line = (event: unknown) => `${JSON.stringify(event)}\n`;

/** A stand-in API server whose one watch answer the test scripts; it records the request URLs. */
async function stubServer(answer: (res: ServerResponse) => void): Promise<{ rest: RestClient; urls: string[] }> {
  const urls: string[] = [];
  server = createServer((req, res) => {
    urls.push(req.url ?? '');
    answer(res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const config = new KubeConfig();
  config.loadFromOptions({
    // The client library allows plain HTTP only with verification explicitly off.
    clusters: [
      { name: 'stub', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
    ],
    users: [{ name: 'stub', token: 'secret' }],
    contexts: [{ name: 'stub', cluster: 'stub', user: 'stub' }],
    currentContext: 'stub',
  });
  return { rest: new RestClient(config), urls };
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function drain(iterable: AsyncIterable<WatchEvent>): Promise<{ events: string[]; error?: unknown }> {
  const events: string[] = [];
  try {
    for await (const e of iterable) events.push(`${e.type} ${e.object.metadata.name} ${e.object.kind}`);
  } catch (error) {
    return { events, error };
  }
  return { events };
}

describe('Kubernetes watch stream', () => {
  it('delivers events with their kind, skips bookmarks and ends when the server ends the stream', async () => {
    const { rest, urls } = await stubServer((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(line({ type: 'ADDED', object: widget('a', '5') }));
      res.write(line({ type: 'BOOKMARK', object: widget('', '6') }));
      res.end(line({ type: 'DELETED', object: widget('a', '7') }));
    });
    const result = await drain(watchKind(rest, kind, { namespace: 'ns', resourceVersion: '4', labelSelector: 'x=y' }));
    expect(result).toEqual({ events: ['ADDED a Widget', 'DELETED a Widget'] });
    const query = new URL(urls[0]!, 'http://stub').searchParams;
    expect(urls[0]).toMatch(/^\/apis\/contract\.stratus\.dev\/v1\/namespaces\/ns\/widgets\?/);
    expect(Object.fromEntries(query)).toMatchObject({ watch: 'true', resourceVersion: '4', labelSelector: 'x=y' });
    // client-go's reflector's span: 5 to 10 minutes.
    expect(Number(query.get('timeoutSeconds'))).toBeGreaterThanOrEqual(300);
    expect(Number(query.get('timeoutSeconds'))).toBeLessThan(600);
    expect(DEFAULT_WATCH_TIMINGS).toEqual({ minTimeoutSeconds: 300, graceMs: 30_000 });
  });

  it('throws 410 Gone after the events before it when the server reports an expired resourceVersion', async () => {
    const { rest } = await stubServer((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(line({ type: 'MODIFIED', object: widget('a', '9') }));
      res.end(line({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } }));
    });
    const { events, error } = await drain(watchKind(rest, kind, { resourceVersion: '1' }));
    expect(events).toEqual(['MODIFIED a Widget']);
    expect(isApiError(error, 'Gone') && error.code).toBe(410);
  });

  it('throws the answer of a refused watch request as an ApiError', async () => {
    const { rest } = await stubServer((res) => {
      res.writeHead(410, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: 410, reason: 'Gone', message: 'too old resource version' }));
    });
    const { error } = await drain(watchKind(rest, kind, { resourceVersion: '1' }));
    expect(isApiError(error, 'Gone') && error.message).toBe('too old resource version');
  });

  it('leaves no listener on a signal that outlives the watches using it', async () => {
    const { rest } = await stubServer((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(line({ type: 'ADDED', object: widget('a', '5') }));
    });
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) {
      expect((await drain(watchKind(rest, kind, { signal: controller.signal }))).events).toHaveLength(1);
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('ends without an error when the consumer aborts', async () => {
    const { rest } = await stubServer((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(line({ type: 'ADDED', object: widget('a', '5') }));
    });
    const controller = new AbortController();
    const events: string[] = [];
    for await (const e of watchKind(rest, kind, { signal: controller.signal })) {
      events.push(e.type);
      controller.abort();
    }
    expect(events).toEqual(['ADDED']);
  });

  it('asks the server to end each watch after a time drawn between the minimum and twice it', async () => {
    const { rest, urls } = await stubServer((res) => res.writeHead(200).end());
    for (let i = 0; i < 20; i++) await drain(watchKind(rest, kind, {}, { minTimeoutSeconds: 10, graceMs: 0 }));
    const asked = urls.map((url) => Number(new URL(url, 'http://stub').searchParams.get('timeoutSeconds')));
    expect(asked.every((seconds) => Number.isInteger(seconds) && seconds >= 10 && seconds < 20)).toBe(true);
    // Drawn, not fixed: watches started together do not all end together.
    expect(new Set(asked).size).toBeGreaterThan(1);
  });

  it('gives up a watch whose connection went silent, after the events it delivered', async () => {
    // The server sends one event and then nothing, not even the end of the timeout it was asked for.
    const { rest, urls } = await stubServer((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(line({ type: 'ADDED', object: widget('a', '5') }));
    });
    const started = performance.now();
    const { events, error } = await drain(watchKind(rest, kind, {}, { minTimeoutSeconds: 1, graceMs: 300 }));
    const elapsed = performance.now() - started;
    expect(events).toEqual(['ADDED a Widget']);
    expect(error).toBeInstanceOf(WatchDeadlineExceeded);
    const asked = Number(new URL(urls[0]!, 'http://stub').searchParams.get('timeoutSeconds'));
    expect(elapsed).toBeGreaterThanOrEqual(asked * 1_000 + 300 - 20);
    expect(elapsed).toBeLessThan(asked * 1_000 + 300 + 1_000);
  });

  it('gives up a watch request the server never answers', async () => {
    const { rest } = await stubServer(() => {});
    const { events, error } = await drain(watchKind(rest, kind, {}, { minTimeoutSeconds: 1, graceMs: 0 }));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(WatchDeadlineExceeded);
  });
});
