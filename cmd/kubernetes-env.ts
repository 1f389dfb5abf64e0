import { hostname } from 'node:os';

/** The settings of the Kubernetes-mode commands, from the environment the chart gives their pods. */
export interface KubernetesEnv {
  /** `WATCH_NAMESPACE`, a comma list; empty means every namespace. */
  namespaces: string[];
  /** `STRATUS_CONFIG`: the instance configuration file. */
  config?: string;
  /** `STRATUS_STORE_PATH` (default `/var/lib/stratus`): where the store volume is mounted, unless the configuration names a storage root. */
  storePath: string;
  /** `METRICS_PORT` (operator, default 8080) or `PORT` (API server, default 8000). */
  port: number;
  host: string;
}

export function kubernetesEnv(env: NodeJS.ProcessEnv, defaultPort: number, portVariable: string): KubernetesEnv {
  return {
    namespaces: (env.WATCH_NAMESPACE ?? '')
      .split(',')
      .map((namespace) => namespace.trim())
      .filter(Boolean),
    config: env.STRATUS_CONFIG,
    storePath: env.STRATUS_STORE_PATH ?? '/var/lib/stratus',
    port: Number(env[portVariable] ?? defaultPort),
    host: env.HOST ?? '0.0.0.0',
  };
}

/** The operator's own settings: leader election and the worker Jobs. */
export interface OperatorEnv extends KubernetesEnv {
  lease: { name: string; namespace: string; identity: string };
  worker: { image: string; storeClaim: string; serviceAccountName?: string };
}

export class MissingSettingError extends Error {}

function required(env: NodeJS.ProcessEnv, name: string, why: string): string {
  const value = env[name];
  if (!value) throw new MissingSettingError(`${name} is not set: ${why}`);
  return value;
}

export function operatorEnv(env: NodeJS.ProcessEnv): OperatorEnv {
  return {
    ...kubernetesEnv(env, 8080, 'METRICS_PORT'),
    lease: {
      name: env.LEADER_ELECTION_LEASE ?? 'stratus-operator',
      namespace:
        env.LEADER_ELECTION_NAMESPACE ??
        required(env, 'POD_NAMESPACE', 'the leader-election Lease lives in the operator namespace'),
      identity: env.POD_NAME ?? hostname(),
    },
    worker: {
      image: required(env, 'STRATUS_WORKER_IMAGE', 'the worker Jobs run this image'),
      storeClaim: required(env, 'STRATUS_STORE_CLAIM', 'the worker Jobs mount this claim'),
      serviceAccountName: env.STRATUS_WORKER_SERVICE_ACCOUNT,
    },
  };
}
