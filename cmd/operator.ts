import { collectDefaultMetrics, Registry } from 'prom-client';
import { openKubernetesCluster, type WatchTimings } from '../core/cluster/kubernetes/index.ts';
import { loadInstanceConfig } from '../core/config/index.ts';
import { createLogging } from '../core/logging/index.ts';
import { ingestionKind } from '../core/resources/ingestion/schema.ts';
import { KubernetesJobRunner } from '../operator/jobs/kubernetes/kubernetes-job-runner.ts';
import { startOperator, type OperatorOptions, type RunningOperator } from '../operator/manager.ts';
import { startHealthServer } from '../operator/runtime/health-server.ts';
import { LeaderElector, type LeaseTimings } from '../operator/runtime/leader-election.ts';
import type { OperatorEnv } from './kubernetes-env.ts';

export interface RunningKubernetesOperator {
  /** The probe and metrics endpoint. */
  url: string;
  /** Settles when leadership is lost: the process must exit then, so that no two leaders act. */
  lost: Promise<void>;
  stop(): Promise<void>;
}

export interface KubernetesOperatorOptions extends Pick<OperatorOptions, 'ingestion'> {
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
  const logging = createLogging({ config, home: process.env.STRATUS_HOME });
  const log = logging.forModule('operator');
  for (const warning of config.warnings) log.warn(warning);
  const cluster = openKubernetesCluster({ kubeconfig: options.kubeconfig, watchTimings: options.watchTimings });
  const storageRoot = config.storageRoot ?? settings.storePath;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const { history, storeClaim, ...worker } = settings.worker;
  const jobs = new KubernetesJobRunner({
    cluster,
    logger: log,
    ownerKinds: [ingestionKind],
    namespaces: settings.namespaces,
    job: { ...worker, store: { claimName: storeClaim, mountPath: storageRoot } },
    history,
  });
  let operator: RunningOperator | undefined;
  let synced = false;
  let stopping = false;
  let markLost: () => void = () => {};
  const lost = new Promise<void>((resolve) => (markLost = resolve));
  const elector = new LeaderElector({
    ...options.leaseTimings,
    cluster,
    logger: log,
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
          namespaces: settings.namespaces,
          jobs,
          ingestion: options.ingestion,
          instance: { storageRoot, bbox: config.instance.bbox },
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
    ready: () => synced || !elector.isLeader,
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
