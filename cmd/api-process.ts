/**
 * One of embedded mode's further API server processes (`--api-processes`, `cmd/api-processes.ts` forks it): the
 * same application as the process that owns the store, over that process's Cluster port reached by IPC, accepting
 * connections on the listening socket it was handed. It stops when told to or when its parent is gone.
 */
import type { Server } from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { buildApp } from '../api-server/app.ts';
import { startApiServerOn, type RunningServer } from '../api-server/server.ts';
import { remoteCluster } from '../core/cluster/remote/client.ts';
import { sent, type Channel } from '../core/cluster/remote/protocol.ts';
import { loadInstanceConfig } from '../core/config/index.ts';
import { createLogging } from '../core/logging/index.ts';
import { logSettings } from '../core/logging/settings.ts';
import {
  API_PROCESS_ENV,
  isApiMessage,
  type ApiProcessSettings,
  type FromApiProcess,
  type ToApiProcess,
} from './api-processes.ts';

const tell = (message: FromApiProcess) => process.connected && process.send?.(message, undefined, undefined, sent);

// The parent asks for the stop: a signal sent to the whole process group (Ctrl+C) must not end this one first.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);

let running: RunningServer | undefined;
/** Closes the cluster's channel and the log files, once they are open. */
let close = () => undefined as void;
let stopping: Promise<void> | undefined;
const stop = () =>
  (stopping ??= (async () => {
    await running?.stop();
    close();
    process.exit(0);
  })());

/**
 * This process's metrics; what `/metrics` answers is the installation's, which the owner adds up (asking every
 * API process for its own, this one included).
 */
class ProcessRegistry extends Registry {
  #nextId = 1;
  readonly #awaited = new Map<number, (text: string) => void>();

  override metrics(): Promise<string> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#awaited.set(id, resolve);
      tell({ stratusApi: 'installationMetrics', id });
    });
  }

  answered(id: number, text: string): void {
    this.#awaited.get(id)?.(text);
    this.#awaited.delete(id);
  }
}
const registry = new ProcessRegistry();
collectDefaultMetrics({ register: registry });

// Registered before anything waits, so that the socket sent right after the fork is not missed.
const socket = new Promise<Server>((resolve) => {
  process.on('message', (message, handle) => {
    if (!isApiMessage<ToApiProcess>(message)) return;
    if (message.stratusApi === 'listen') resolve(handle as Server);
    else if (message.stratusApi === 'metrics')
      void registry.getMetricsAsJSON().then((metrics) => tell({ stratusApi: 'metrics', id: message.id, metrics }));
    else if (message.stratusApi === 'installationMetrics') registry.answered(message.id, message.text);
    else void stop();
  });
});
process.once('disconnect', () => void stop());

const settings = JSON.parse(process.env[API_PROCESS_ENV]!) as ApiProcessSettings;
const config = await loadInstanceConfig(settings.config);
const logging = createLogging(logSettings(config, { home: settings.home }));
const cluster = remoteCluster(process as Channel);
close = () => {
  cluster.close();
  logging.close();
};
try {
  const app = await buildApp({
    cluster,
    config,
    storageRoot: settings.storageRoot,
    registry,
    logger: logging.forModule('api-server'),
  });
  // What `listen` takes is the TCP handle inside the Server received (the one the parent listens on).
  const handle = (await socket) as unknown as { _handle: object };
  running = await startApiServerOn(app, handle._handle);
  tell({ stratusApi: 'listening' });
} catch (err) {
  tell({ stratusApi: 'failed', message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
}
