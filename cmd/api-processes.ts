import { fork, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:net';
import type { Logger } from 'pino';
import { AggregatorRegistry, Registry } from 'prom-client';
import type { Cluster } from '../core/cluster/port.ts';
import { sent } from '../core/cluster/remote/protocol.ts';
import { serveCluster } from '../core/cluster/remote/serve.ts';

const API_PROCESS = new URL('./api-process.ts', import.meta.url);

/** What a further API process needs to build the same application as this one (sent in its environment). */
export interface ApiProcessSettings {
  config: string | undefined;
  /** `$STRATUS_HOME` of the logs, as this process has it. */
  home: string;
  storageRoot: string;
}

export const API_PROCESS_ENV = 'STRATUS_API_PROCESS';

/**
 * Messages between this process and its further API processes, beside the Cluster port's own: start and stop,
 * and the metrics (this process asks each for its own, `metrics`; each asks this one for the installation's).
 */
export type ToApiProcess =
  | { stratusApi: 'listen' }
  | { stratusApi: 'stop' }
  | { stratusApi: 'metrics'; id: number }
  | { stratusApi: 'installationMetrics'; id: number; text: string };
export type FromApiProcess =
  | { stratusApi: 'listening' }
  | { stratusApi: 'failed'; message: string }
  | { stratusApi: 'metrics'; id: number; metrics: object[] }
  | { stratusApi: 'installationMetrics'; id: number };

export function isApiMessage<T extends ToApiProcess | FromApiProcess>(message: unknown): message is T {
  return typeof message === 'object' && message !== null && 'stratusApi' in message;
}

/** How long this process waits for an API process's metrics before answering without them. */
const METRICS_WAIT_MS = 2_000;

/**
 * The owner's registry while several processes serve: what `/metrics` answers (its text) adds up this process's
 * metrics and every API process's, by prom-client's aggregation (counters and histograms summed, each default
 * metric as prom-client says), so that a scrape reaching any process sees the whole installation.
 */
export class InstallationRegistry extends Registry {
  /** The metrics of the other processes, as `getMetricsAsJSON` gives them in each. */
  others: () => Promise<object[][]> = async () => [];

  override async metrics(): Promise<string> {
    const all = [await this.getMetricsAsJSON(), ...(await this.others())];
    return AggregatorRegistry.aggregate(all).metrics();
  }
}

export interface ApiProcesses {
  /**
   * Asks every process to stop (each lets its responses in flight finish within the drain bound, then resets what
   * is left) and waits for all to exit.
   */
  stop(): Promise<void>;
}

export interface ApiProcessesOptions {
  count: number;
  /** The listening socket this process serves on: every further process accepts connections on it too. */
  server: Server;
  /** The store this process owns, which the others reach over their IPC channel. */
  cluster: Cluster;
  /** This process's registry: its text becomes the installation's. */
  registry: InstallationRegistry;
  settings: ApiProcessSettings;
  /** How long each process lets its responses finish when it stops (`server.timeout.shutdown`, which it reads too). */
  drainMs: number;
  log: Logger;
}

/**
 * How long past the drain bound a stopping process may take to exit before it is killed: its server has reset its
 * remaining connections at the bound, and only closing is left.
 */
const EXIT_MARGIN_MS = 5_000;
/** A process that ended on its own is replaced after this long, as nginx's master replaces a worker. */
const RESPAWN_DELAY_MS = 1_000;

/**
 * Forks `count` further API server processes (`cmd/api-process.ts`) that accept connections on this process's
 * listening socket (shared by handle, so the kernel spreads connections over all of them) and reach the store
 * through this process (`serveCluster`). Resolves once every one listens. A process that ends before `stop` is
 * replaced. The processes ignore signals of their own (Ctrl+C reaches the whole process group): they stop when this
 * process tells them to, or when it is gone (their channel closes).
 */
export async function startApiProcesses(options: ApiProcessesOptions): Promise<ApiProcesses> {
  const { server, cluster, registry, settings, log } = options;
  const children = new Set<ChildProcess>();
  let stopping = false;
  let nextId = 1;
  const awaitedMetrics = new Map<number, (metrics: object[]) => void>();

  const metricsOf = (child: ChildProcess) =>
    new Promise<object[] | undefined>((resolve) => {
      if (!child.connected) return resolve(undefined);
      const id = nextId++;
      const timer = setTimeout(() => {
        awaitedMetrics.delete(id);
        resolve(undefined);
      }, METRICS_WAIT_MS);
      awaitedMetrics.set(id, (metrics) => {
        clearTimeout(timer);
        awaitedMetrics.delete(id);
        resolve(metrics);
      });
      child.send({ stratusApi: 'metrics', id } satisfies ToApiProcess, sent);
    });
  registry.others = async () =>
    (await Promise.all([...children].map(metricsOf))).filter((metrics) => metrics !== undefined);

  const spawnOne = (): Promise<void> => {
    const child = fork(API_PROCESS, [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'json',
      env: { ...process.env, [API_PROCESS_ENV]: JSON.stringify(settings) },
    });
    children.add(child);
    const served = serveCluster(cluster, child);
    const listening = new Promise<void>((resolve, reject) => {
      child.on('message', (message) => {
        if (!isApiMessage<FromApiProcess>(message)) return;
        if (message.stratusApi === 'listening') resolve();
        else if (message.stratusApi === 'failed')
          reject(new Error(`an API process failed to start: ${message.message}`));
        else if (message.stratusApi === 'metrics') awaitedMetrics.get(message.id)?.(message.metrics);
        else
          void registry.metrics().then((text) => {
            if (child.connected)
              child.send({ stratusApi: 'installationMetrics', id: message.id, text } satisfies ToApiProcess, sent);
          });
      });
      child.once('exit', (code, signal) => reject(new Error(`an API process exited with ${signal ?? code}`)));
    });
    child.once('exit', (code, signal) => {
      served.stop();
      children.delete(child);
      if (stopping) return;
      log.error({ pid: child.pid, code, signal }, 'an API process ended: starting another');
      setTimeout(() => {
        if (!stopping) spawnOne().catch((err: unknown) => log.error({ err }, 'an API process did not start'));
      }, RESPAWN_DELAY_MS);
    });
    child.send({ stratusApi: 'listen' } satisfies ToApiProcess, server, undefined, sent);
    return listening;
  };

  try {
    await Promise.all(Array.from({ length: options.count }, spawnOne));
  } catch (err) {
    stopping = true;
    for (const child of children) child.kill('SIGKILL');
    throw err;
  }
  log.info({ processes: options.count + 1 }, 'API processes listening');

  return {
    stop: async () => {
      stopping = true;
      await Promise.all(
        [...children].map(async (child) => {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          if (child.connected) child.send({ stratusApi: 'stop' } satisfies ToApiProcess, sent);
          const timer = setTimeout(() => child.kill('SIGKILL'), options.drainMs + EXIT_MARGIN_MS);
          await exited;
          clearTimeout(timer);
        }),
      );
    },
  };
}
