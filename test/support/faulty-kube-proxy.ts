/**
 * A reverse proxy in front of the test API server that fails the way networks, load balancers and API servers
 * do: it cuts watch streams mid-way, answers resumed watches with 410 Gone (both as an HTTP 410 and as a 200
 * stream whose first event is an ERROR, the two forms real servers use), answers some requests with 500, and
 * silences watches: their connection stays open and nothing more comes through, not even the server's end.
 *
 * The client side is plain HTTP on loopback (a test-only shortcut: the operator's bearer token crosses no
 * network); the proxy forwards over TLS with the API server's CA from the admin kubeconfig.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';

export interface FaultSchedule {
  /**
   * Of the requests that are not watches, every nth to each path (method and path, so that one client's
   * periodic requests, such as a Lease's renewals, do not keep landing on the nth) is answered 500 without
   * reaching the API server.
   */
  failEveryNthRequest?: number;
  /** Every nth watch request is answered 500 without reaching the API server. */
  failEveryNthWatch?: number;
  /** Every nth watch that resumes from a resourceVersion is answered 410 Gone, alternating the two forms. */
  expireEveryNthResume?: number;
  /** Open watches are cut this often, alternately by destroying the connection and by ending the response. */
  cutWatchesEveryMs?: number;
}

export type ExpiryForm = 'http' | 'event';
export type CutForm = 'destroy' | 'end';

/** What the proxy did, so that a test can tell its faults really happened. */
export interface FaultCounts {
  forwarded: number;
  failedBefore: number;
  failedAfter: number;
  watchesRefused: number;
  expired: Record<ExpiryForm, number>;
  cut: Record<CutForm, number>;
  silenced: number;
  /** Silenced watches whose connection the client closed: it gave up waiting. */
  silencedClosedByClient: number;
}

export interface FaultyKubeProxy {
  /** A kubeconfig whose server is the proxy, with the admin's token. */
  kubeconfig: string;
  counts: FaultCounts;
  /** The next request that `matches` fails with 500: `before` it reaches the API server, or `after` it was done. */
  failNext(matches: (method: string, url: URL) => boolean, when: 'before' | 'after'): void;
  /** Answers every request that `matches` with 500, before it reaches the API server, from now on. */
  failWhile(matches: (method: string, url: URL) => boolean): void;
  /** Holds the next request that `matches` until released: `arrived` settles when it comes. */
  holdNext(matches: (method: string, url: URL) => boolean): { arrived: Promise<void>; release(): void };
  /** Cuts every open watch now; returns how many. */
  cutWatches(form: CutForm): number;
  /**
   * Silences every open watch that `matches`, as a half-open connection or a stuck proxy would: the connection
   * stays open, and nothing more reaches the client, neither events nor the server's end. Returns how many.
   */
  silenceWatches(matches: (url: URL) => boolean): number;
  /** Cuts every open watch and answers new ones 500 until released: the window a change can fall into. */
  holdWatches(): void;
  /** Ends the hold; with `expire`, each watch's next resumption (one per watched collection) is answered 410. */
  releaseWatches(expire?: ExpiryForm): void;
  close(): Promise<void>;
}

interface OpenWatch {
  url: URL;
  upstream: ReturnType<typeof httpsRequest>;
  reply?: IncomingMessage;
  response: ServerResponse;
  /** Cut on purpose: the upstream's failure that follows is the proxy's doing, not news for the client. */
  cut: boolean;
  silent: boolean;
}

function status(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

function answer(response: ServerResponse, code: number, body: unknown): void {
  response.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const isWatch = (url: URL) => ['true', '1'].includes(url.searchParams.get('watch') ?? '');
const isResume = (url: URL) => isWatch(url) && !['', '0'].includes(url.searchParams.get('resourceVersion') ?? '');
/** The collection a watch follows, whatever version it resumes from. */
const collectionOf = (url: URL) => `${url.pathname}?${url.searchParams.get('labelSelector') ?? ''}`;

/** Starts the proxy in front of the API server of `adminKubeconfig`, with `schedule`'s faults from the start. */
export async function startFaultyKubeProxy(
  adminKubeconfig: string,
  directory: string,
  schedule: FaultSchedule = {},
): Promise<FaultyKubeProxy> {
  const config = new KubeConfig();
  config.loadFromFile(adminKubeconfig);
  const cluster = config.getCurrentCluster()!;
  const user = config.getCurrentUser()!;
  const target = new URL(cluster.server);
  const ca = cluster.caFile ? await readFile(cluster.caFile) : Buffer.from(cluster.caData ?? '', 'base64');

  const counts: FaultCounts = {
    forwarded: 0,
    failedBefore: 0,
    failedAfter: 0,
    watchesRefused: 0,
    expired: { http: 0, event: 0 },
    cut: { destroy: 0, end: 0 },
    silenced: 0,
    silencedClosedByClient: 0,
  };
  const seen = { watches: 0, resumes: 0 };
  const requestsTo = new Map<string, number>();
  const pending: { matches: (method: string, url: URL) => boolean; when: 'before' | 'after' }[] = [];
  const open = new Set<OpenWatch>();
  let closing = false;
  const failing: ((method: string, url: URL) => boolean)[] = [];
  const holds: { matches: (method: string, url: URL) => boolean; arrive(): void; released: Promise<void> }[] = [];
  let held = false;
  /** While a released hold expires resumptions: the collections whose resumption got its 410 already. */
  let expiring: { form: ExpiryForm; done: Set<string> } | undefined;

  const expire = (response: ServerResponse, form: ExpiryForm, url: URL) => {
    counts.expired[form]++;
    const gone = status(410, 'Expired', `too old resource version: ${url.searchParams.get('resourceVersion')}`);
    if (form === 'http') answer(response, 410, gone);
    else {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`${JSON.stringify({ type: 'ERROR', object: gone })}\n`);
    }
  };

  const forward = (request: IncomingMessage, response: ServerResponse, url: URL, failAfter: boolean) => {
    counts.forwarded++;
    const upstream = httpsRequest({
      host: target.hostname,
      port: target.port,
      method: request.method,
      path: request.url,
      headers: { ...request.headers, host: target.host },
      ca,
    });
    const watch: OpenWatch = { url, upstream, response, cut: false, silent: false };
    upstream.on('response', (reply) => {
      if (watch.silent) {
        reply.resume();
        return;
      }
      if (failAfter) {
        counts.failedAfter++;
        reply.resume().once('end', () => answer(response, 500, status(500, 'InternalError', 'injected after')));
        return;
      }
      watch.reply = reply;
      response.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(response);
    });
    upstream.on('error', () => watch.cut || response.destroy());
    if (isWatch(url)) {
      open.add(watch);
      response.once('close', () => {
        open.delete(watch);
        upstream.destroy();
        // Only a silenced watch whose response never ended was closed by the client giving up.
        if (watch.silent && !closing && !response.writableEnded) counts.silencedClosedByClient++;
      });
    }
    request.pipe(upstream);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://proxy');
    const method = request.method ?? 'GET';
    const hold = holds.findIndex((h) => h.matches(method, url));
    if (hold >= 0) {
      const [{ arrive, released }] = holds.splice(hold, 1) as [(typeof holds)[number]];
      arrive();
      await released;
    }
    const failure = pending.findIndex((p) => p.matches(method, url));
    const planned = failure >= 0 ? pending.splice(failure, 1)[0]!.when : undefined;
    const injected = () => {
      counts.failedBefore++;
      request.resume();
      answer(response, 500, status(500, 'InternalError', 'injected by the faulty proxy'));
    };
    if (planned === 'before' || failing.some((matches) => matches(method, url))) return injected();
    if (!isWatch(url)) {
      const path = `${method} ${url.pathname}`;
      const nth = (requestsTo.get(path) ?? 0) + 1;
      requestsTo.set(path, nth);
      if (!planned && schedule.failEveryNthRequest && nth % schedule.failEveryNthRequest === 0) return injected();
      return forward(request, response, url, planned === 'after');
    }
    seen.watches++;
    if (held) {
      counts.watchesRefused++;
      return answer(response, 500, status(500, 'InternalError', 'watches held by the faulty proxy'));
    }
    if (schedule.failEveryNthWatch && seen.watches % schedule.failEveryNthWatch === 0) return injected();
    if (isResume(url)) {
      seen.resumes++;
      if (expiring && !expiring.done.has(collectionOf(url))) {
        expiring.done.add(collectionOf(url));
        return expire(response, expiring.form, url);
      }
      const n = schedule.expireEveryNthResume;
      if (n && seen.resumes % n === 0) return expire(response, (seen.resumes / n) % 2 ? 'http' : 'event', url);
    }
    forward(request, response, url, planned === 'after');
  };

  const cutWatches = (form: CutForm) => {
    const cut = [...open];
    for (const watch of cut) {
      open.delete(watch);
      counts.cut[form]++;
      watch.cut = true;
      watch.reply?.unpipe(watch.response);
      watch.upstream.destroy();
      // `destroy` drops the connection mid-stream; `end` closes the chunked response as a server timeout would.
      if (form === 'destroy') watch.response.destroy();
      else watch.response.end();
    }
    return cut.length;
  };

  const silenceWatches = (matches: (url: URL) => boolean) => {
    // A watch whose end already went through is no longer open for the client: it is renewing it.
    const silenced = [...open].filter((watch) => matches(watch.url) && !watch.response.writableEnded);
    for (const watch of silenced) {
      open.delete(watch);
      counts.silenced++;
      watch.silent = true;
      watch.cut = true;
      // The server's events and its end are read and dropped: the client hears nothing, and the socket stays.
      watch.reply?.unpipe(watch.response);
      watch.reply?.resume();
    }
    return silenced.length;
  };

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let cuts = 0;
  const timer = schedule.cutWatchesEveryMs
    ? setInterval(() => cutWatches(cuts++ % 2 ? 'end' : 'destroy'), schedule.cutWatchesEveryMs)
    : undefined;

  const kubeconfig = join(directory, 'proxy-kubeconfig');
  await writeFile(
    kubeconfig,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      // @kubernetes/client-node refuses an http server unless TLS verification is off: there is no TLS to verify.
      clusters: [{ name: 'proxy', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'admin', user: { token: user.token } }],
      contexts: [{ name: 'proxy', context: { cluster: 'proxy', user: 'admin' } }],
      'current-context': 'proxy',
    }),
  );

  return {
    kubeconfig,
    counts,
    failNext: (matches, when) => pending.push({ matches, when }),
    failWhile: (matches) => failing.push(matches),
    holdNext: (matches) => {
      let arrive = () => {};
      let release = () => {};
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.push({ matches, arrive, released });
      return { arrived, release };
    },
    cutWatches,
    silenceWatches,
    holdWatches: () => {
      held = true;
      cutWatches('destroy');
    },
    releaseWatches: (form) => {
      held = false;
      expiring = form && { form, done: new Set() };
    },
    close: async () => {
      closing = true;
      clearInterval(timer);
      cutWatches('destroy');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
