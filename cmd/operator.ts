import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Logger } from 'pino';
import { openKubernetesCluster, type KubernetesCluster, type WatchTimings } from '../core/cluster/kubernetes/index.ts';
import { loadInstanceConfig } from '../core/config/index.ts';
import { createLogging } from '../core/logging/index.ts';
import { logSettings } from '../core/logging/settings.ts';
import { analyticsTableKind } from '../core/resources/analytics-table/schema.ts';
import { ingestionKind } from '../core/resources/ingestion/schema.ts';
import { processingJobKind } from '../core/resources/processing-job/schema.ts';
import { deliveryKind } from '../core/resources/delivery/schema.ts';
import { defaultRunOptions } from '../core/runs/options.ts';
import { workerLogSettings } from '../operator/jobs/kubernetes/job-manifest.ts';
import { KubernetesJobRunner } from '../operator/jobs/kubernetes/kubernetes-job-runner.ts';
import { startOperator, type OperatorOptions, type RunningOperator } from '../operator/manager.ts';
import { startHealthServer } from '../operator/runtime/health-server.ts';
import { LeaderElector, type LeaseTimings } from '../operator/runtime/leader-election.ts';
import type { OperatorEnv } from './kubernetes-env.ts';

/** The first minor release whose Job controller runs Indexed Jobs by default (beta, on by default). */
const INDEXED_JOBS_SINCE = 22;

/**
 * Whether the API server runs Indexed Jobs. An older one drops `completionMode` without a word and would run every
 * part as the same index-less pod, so there split attempts run in one worker instead. An unreadable version counts
 * as old: splitting is an optimisation, a wrong guess about it a failed run.
 */
export async function servesIndexedJobs(cluster: KubernetesCluster, log: Logger): Promise<boolean> {
  try {
    const version = await cluster.serverVersion();
    const [major, minor] = [Number.parseInt(version.major, 10), Number.parseInt(version.minor, 10)];
    const indexed = major > 1 || (major === 1 && minor >= INDEXED_JOBS_SINCE);
    if (!indexed)
      log.info({ version: version.gitVersion }, 'this API server has no Indexed Jobs: ingestion runs are not split');
    return indexed;
  } catch (err) {
    log.warn({ err }, 'reading the API server version failed: ingestion runs are not split');
    return false;
  }
}

export interface RunningKubernetesOperator {
  /** The probe and metrics endpoint. */
  url: string;
  /** Settles when leadership is lost: the process must exit then, so that no two leaders act. */
  lost: Promise<void>;
  stop(): Promise<void>;
}

export interface KubernetesOperatorOptions extends Pick<OperatorOptions, 'runs'> {
  /** A kubeconfig file; without one, `$KUBECONFIG`, `~/.kube/config` or the pod's service account. */
  kubeconfig?: string;
  leaseTimings?: Partial<LeaseTimings>;
  watchTimings?: Partial<WatchTimings>;
}

/**
 * Kubernetes mode's operator: campaigns for the Lease, and while it leads runs the controllers with worker
 * Jobs. It is ready once the controllers have listed what they watch; a standby is ready too (waiting is its work).
 */
export async function runKubernetesOperator(
  settings: OperatorEnv,
  options: KubernetesOperatorOptions = {},
): Promise<RunningKubernetesOperator> {
  const config = await loadInstanceConfig(settings.config);
  const logging = createLogging(logSettings(config, { home: process.env.STRATUS_HOME }));
  const log = logging.forModule('operator');
  for (const warning of config.warnings) log.warn(warning);
  const cluster = openKubernetesCluster({ kubeconfig: options.kubeconfig, watchTimings: options.watchTimings });
  const storageRoot = config.storageRoot ?? settings.storePath;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const { history, storeClaim, split, ...worker } = settings.worker;
  const indexedJobs = await servesIndexedJobs(cluster, log);
  const jobs = new KubernetesJobRunner({
    cluster,
    logger: logging.forModule('operator.jobs'),
    ownerKinds: [ingestionKind, processingJobKind, deliveryKind, analyticsTableKind],
    namespaces: settings.namespaces,
    job: {
      ...worker,
      store: { claimName: storeClaim, mountPath: storageRoot },
      logging: workerLogSettings(logging.settings, storageRoot),
    },
    history,
    indexedJobs,
  });
  let operator: RunningOperator | undefined;
  let synced = false;
  let stopping = false;
  let markLost: () => void = () => {};
  const lost = new Promise<void>((resolve) => (markLost = resolve));
  const elector = new LeaderElector({
    ...options.leaseTimings,
    cluster,
    logger: logging.forModule('operator.leader-election'),
    ...settings.lease,
    onStartedLeading: () => {
      void (async () => {
        await jobs.sync();
        // A stop that came while the Jobs were listed releases the Lease without waiting for the controllers:
        // started now, they would act beside the next leader.
        if (stopping) return;
        operator = startOperator({
          cluster,
          registry,
          logger: log,
          runLogger: logging.forRun,
          namespaces: settings.namespaces,
          jobs,
          runs: options.runs ?? { ...defaultRunOptions, split },
          instance: {
            storageRoot,
            bbox: config.instance.bbox,
            changelog: config.changelog,
            versionGraceMs: config.datasets.versionGraceMs,
          },
          readOnly: config.readOnly,
          leadership: elector.leadership,
          reportingInstance: settings.lease.identity,
        });
        await operator.synced();
        synced = true;
        log.info('controllers synced');
      })().catch((err: unknown) => {
        log.error({ err }, 'starting the controllers failed');
        markLost();
      });
    },
    onStoppedLeading: markLost,
  });
  const health = await startHealthServer({
    host: settings.host,
    port: settings.port,
    registry,
    // A stopping operator is not ready: its probe port stays open for the metrics until the very end.
    ready: () => !stopping && (synced || !elector.isLeader),
  });
  elector.start();
  return {
    url: health.url,
    lost,
    // The controllers stop before the Lease is released, so that the next leader never overlaps this one.
    stop: async () => {
      stopping = true;
      await operator?.stop();
      await jobs.stop();
      await elector.stop();
      await health.close();
      logging.close();
    },
  };
}
