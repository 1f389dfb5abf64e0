import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { buildApp } from '../api-server/app.ts';
import { startApiServerOn } from '../api-server/server.ts';
import { ensureFirstAdmin, type FirstAdmin } from '../core/auth/users/first-admin.ts';
import { openEmbeddedCluster } from '../core/cluster/embedded/index.ts';
import { applyManifests, loadManifests } from '../core/cluster/manifests.ts';
import { loadInstanceConfig } from '../core/config/index.ts';
import { createLogging } from '../core/logging/index.ts';
import { logSettings } from '../core/logging/settings.ts';
import { findKind, validateObject } from '../core/resources/registry.ts';
import { secretKind, secretValue, type Secret } from '../core/resources/secret.ts';
import type { KubeObject } from '../core/cluster/objects.ts';
import type { Cluster } from '../core/cluster/port.ts';
import { CANCEL_GRACE_MS, ChildProcessRunner } from '../operator/jobs/child-process-runner.ts';
import { defaultRunOptions } from '../core/runs/options.ts';
import type { JobRunner } from '../operator/jobs/runner.ts';
import { startOperator, type OperatorOptions, type RunningOperator } from '../operator/manager.ts';
import { InstallationRegistry, startApiProcesses } from './api-processes.ts';
import { splitEnv } from './kubernetes-env.ts';
import { checkDataDir, reservePort } from './startup-checks.ts';
import type { EmbeddedArgs } from './args.ts';

export interface RunningEmbedded {
  url: string;
  /** The embedded cluster, for tools and tests that apply or read resources in process. */
  cluster: Cluster;
  /** With the authorization server on: the first admin, and its password when this start created it. */
  firstAdmin?: FirstAdmin;
  /** The controllers, for tools that drive them (the run simulation of bench/runs.ts). */
  operator: RunningOperator;
  /**
   * Stops serving (new connections refused, responses in flight given `server.timeout.shutdown`, then reset), then
   * the controllers and the job runner (running workers asked to cancel), then the store.
   */
  stop(): Promise<void>;
  /** How long `stop` takes at most unless something hangs: the drain bound, then the workers' cancel grace. */
  stopTakesMs: number;
}

const DEFAULT_CONFIG = 'config/stratus.properties';

/** What tools and tests may tune of the operator; the command line never sets any of it. */
export interface EmbeddedOperatorOptions extends Pick<OperatorOptions, 'runs' | 'now'> {
  /** Stands in front of the real job runner (the run simulation finishes attempts at once). */
  jobs?: (runner: ChildProcessRunner) => JobRunner;
}

/**
 * Embedded mode: the file-backed cluster, the controllers and the API server in one process. `operatorOptions`
 * lets tools and tests tune the operator (e.g. a shorter retry backoff, a clock).
 */
export async function runEmbedded(
  args: EmbeddedArgs,
  { jobs = (runner) => runner, ...operatorOptions }: EmbeddedOperatorOptions = {},
): Promise<RunningEmbedded> {
  const dataDir = resolve(args.dataDir);
  // What the person starting can fix refuses the start before the store opens, so no run begins (StartupRefusal).
  await checkDataDir(dataDir);
  const configPath =
    args.config ?? process.env.STRATUS_CONFIG ?? (existsSync(DEFAULT_CONFIG) ? DEFAULT_CONFIG : undefined);
  const config = await loadInstanceConfig(configPath);
  const port = await reservePort(args.host, args.port);
  // A start that fails past this point must not leave the socket holding the process open.
  try {
    const home = process.env.STRATUS_HOME ?? dataDir;
    const logging = createLogging(logSettings(config, { home }));
    const log = logging.forModule('embedded');
    for (const warning of config.warnings) log.warn(warning);

    const cluster = await openEmbeddedCluster({ dataDir: join(dataDir, 'cluster') });
    try {
      // Every directory is read and validated before anything is applied: one bad document applies nothing.
      const files = await loadManifests(args.manifests, validateObject);
      const applied = await applyManifests(cluster, files, (o) => findKind(o.apiVersion, o.kind)!);
      log.info({ dirs: args.manifests, objects: applied.length }, 'applied manifests');
    } catch (err) {
      await cluster.close();
      throw err;
    }

    // The first admin of `make run`: created once with a drawn password, which the command prints that one time.
    const firstAdmin = config.oauth2.serverEnabled ? await ensureFirstAdmin(cluster, 'default') : undefined;
    if (firstAdmin?.created) log.info({ username: firstAdmin.username }, 'created the first admin');

    const storageRoot = resolve(config.storageRoot ?? join(dataDir, 'store'));
    const apiProcesses = args.apiProcesses ?? 1;
    const registry = apiProcesses > 1 ? new InstallationRegistry() : new Registry();
    collectDefaultMetrics({ register: registry });
    const operator = startOperator({
      runs: { ...defaultRunOptions, split: splitEnv(process.env) },
      ...operatorOptions,
      cluster,
      registry,
      logger: logging.forModule('operator'),
      runLogger: logging.forRun,
      instance: {
        storageRoot,
        bbox: config.instance.bbox,
        changelog: config.changelog,
        versionGraceMs: config.datasets.versionGraceMs,
      },
      readOnly: config.readOnly,
      expireEvents: true,
      jobs: jobs(
        new ChildProcessRunner({
          // The workers write this process's files, as this process does.
          logging: logging.settings,
          resolveSecret: async (namespace, name, key) => {
            const secret = await cluster.get<Secret & KubeObject>(secretKind, name, namespace);
            return secret && secretValue(secret, key);
          },
        }),
      ),
    });
    const app = await buildApp({ cluster, config, storageRoot, registry, logger: logging.forModule('api-server') });
    const server = await startApiServerOn(app, port.take());
    port.handOver(app.server);
    // With several API processes, the others accept on this one's socket and reach the store through it (adr/0010).
    const processes =
      registry instanceof InstallationRegistry
        ? await startApiProcesses({
            count: apiProcesses - 1,
            server: app.server,
            cluster,
            registry,
            settings: { config: configPath, home, storageRoot },
            drainMs: config.server.timeouts.shutdownMs,
            log,
          }).catch(async (err: unknown) => {
            await server.stop();
            await operator.stop();
            await cluster.close();
            throw err;
          })
        : undefined;
    return {
      url: server.url,
      cluster,
      firstAdmin,
      operator,
      stopTakesMs: config.server.timeouts.shutdownMs + CANCEL_GRACE_MS,
      stop: async () => {
        // The other processes still reach the store through this one while their requests finish.
        await Promise.all([processes?.stop(), server.stop()]);
        await operator.stop();
        await cluster.close();
        logging.close();
      },
    };
  } catch (err) {
    port.release();
    throw err;
  }
}
