import { collectDefaultMetrics, Registry } from 'prom-client';
import { buildApp } from '../api-server/app.ts';
import { startApiServer, type RunningServer } from '../api-server/server.ts';
import { ensureFirstAdmin } from '../core/auth/users/first-admin.ts';
import { adoptPassword } from '../core/auth/users/reset-password.ts';
import { openKubernetesCluster } from '../core/cluster/kubernetes/index.ts';
import { loadInstanceConfig } from '../core/config/index.ts';
import { createLogging } from '../core/logging/index.ts';
import { logSettings } from '../core/logging/settings.ts';
import type { ApiServerEnv } from './kubernetes-env.ts';

/**
 * Kubernetes mode's API server: the same application as embedded mode over the Kubernetes adapter. It has no
 * leader: every replica answers every request. New resources go to the first watched namespace, else `default`.
 */
export async function runKubernetesApiServer(
  settings: ApiServerEnv,
  options: { kubeconfig?: string } = {},
): Promise<RunningServer> {
  const config = await loadInstanceConfig(settings.config);
  const logging = createLogging(logSettings(config, { home: process.env.STRATUS_HOME }));
  for (const warning of config.warnings) logging.forModule('api-server').warn(warning);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const cluster = openKubernetesCluster({ kubeconfig: options.kubeconfig });
  const namespace = settings.namespaces[0] ?? 'default';
  // The chart's first admin (from a Secret): created when no user has its username; replicas race harmlessly. A
  // changed Secret is the recovery of a lost password: it becomes the password (docs/authorization.md).
  if (settings.firstAdmin && config.oauth2.serverEnabled) {
    const log = logging.forModule('api-server');
    const { username, password } = settings.firstAdmin;
    const admin = await ensureFirstAdmin(cluster, namespace, settings.firstAdmin);
    if (admin.created) log.info({ username }, 'created the first admin');
    const reset = admin.created ? undefined : await adoptPassword(cluster, namespace, username, password);
    if (reset)
      log.info({ username, sessionsEnded: reset.sessionsEnded }, "set the first admin's password from its Secret");
  }
  const app = await buildApp({
    cluster,
    config,
    registry,
    namespace,
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
