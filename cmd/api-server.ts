import { collectDefaultMetrics, Registry } from 'prom-client';
import { buildApp } from '../api-server/app.ts';
import { startApiServer, type RunningServer } from '../api-server/server.ts';
import { openKubernetesCluster } from '../core/cluster/kubernetes/index.ts';
import { loadInstanceConfig } from '../core/config/index.ts';
import { createLogging } from '../core/logging/index.ts';
import type { KubernetesEnv } from './kubernetes-env.ts';

/**
 * Kubernetes mode's API server: the same application as embedded mode over the Kubernetes adapter. It has no
 * leader: every replica answers every request. New resources go to the first watched namespace, else `default`.
 */
export async function runKubernetesApiServer(
  settings: KubernetesEnv,
  options: { kubeconfig?: string } = {},
): Promise<RunningServer> {
  const config = await loadInstanceConfig(settings.config);
  const logging = createLogging({ config, home: process.env.STRATUS_HOME });
  for (const warning of config.warnings) logging.root.warn(warning);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const app = await buildApp({
    cluster: openKubernetesCluster({ kubeconfig: options.kubeconfig }),
    config,
    registry,
    namespace: settings.namespaces[0],
    storageRoot: config.storageRoot ?? settings.storePath,
    logger: logging.forModule('api-server'),
  });
  const server = await startApiServer(app, settings.host, settings.port);
  return {
    ...server,
    stop: async (deadlineMs) => {
      await server.stop(deadlineMs);
      logging.close();
    },
  };
}
