import { hostname } from 'node:os';
import { z } from 'zod';
import { defaultSplitOptions, type SplitOptions } from '../core/runs/options.ts';
import type { WorkerJobOptions } from '../operator/jobs/kubernetes/job-manifest.ts';

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

/** The API server's own settings: the first admin the chart creates from a Secret. */
export interface ApiServerEnv extends KubernetesEnv {
  /** `STRATUS_FIRST_ADMIN_USERNAME` (default `admin`) and `STRATUS_FIRST_ADMIN_PASSWORD`; absent without a password. */
  firstAdmin?: { username: string; password: string };
}

export function apiServerEnv(env: NodeJS.ProcessEnv): ApiServerEnv {
  const password = env.STRATUS_FIRST_ADMIN_PASSWORD;
  return {
    ...kubernetesEnv(env, 8000, 'PORT'),
    ...(password ? { firstAdmin: { username: env.STRATUS_FIRST_ADMIN_USERNAME || 'admin', password } } : {}),
  };
}

/** The operator's own settings: leader election and the worker Jobs. */
export interface OperatorEnv extends KubernetesEnv {
  lease: { name: string; namespace: string; identity: string };
  worker: {
    image: string;
    imagePullPolicy?: WorkerJobOptions['imagePullPolicy'];
    storeClaim: string;
    /** Where the Jobs run: the store claim's namespace. */
    namespace: string;
    serviceAccountName?: string;
    resources?: WorkerJobOptions['resources'];
    podSecurityContext?: WorkerJobOptions['podSecurityContext'];
    activeDeadlineSeconds?: number;
    ttlSecondsAfterFinished?: number;
    history: { successful?: number; failed?: number };
    split: SplitOptions;
  };
}

/** A setting that is missing or malformed: the command stops with its name. */
export class SettingError extends Error {}

function required(env: NodeJS.ProcessEnv, name: string, why: string): string {
  const value = env[name];
  if (!value) throw new SettingError(`${name} is not set: ${why}`);
  return value;
}

function count(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value)) throw new SettingError(`${name} is ${JSON.stringify(value)}: a whole number is expected`);
  return Number(value);
}

/**
 * When ingestion attempts are split into parts, in both modes: `STRATUS_WORKER_PERIODS_PER_PART` (0 never splits),
 * `STRATUS_WORKER_MAX_PARTS` and `STRATUS_WORKER_PART_PARALLELISM`, each defaulting to `defaultSplitOptions`.
 */
export function splitEnv(env: NodeJS.ProcessEnv): SplitOptions {
  return {
    periodsPerPart: count(env, 'STRATUS_WORKER_PERIODS_PER_PART') ?? defaultSplitOptions.periodsPerPart,
    maxParts: count(env, 'STRATUS_WORKER_MAX_PARTS') ?? defaultSplitOptions.maxParts,
    parallelism: count(env, 'STRATUS_WORKER_PART_PARALLELISM') ?? defaultSplitOptions.parallelism,
  };
}

const pullPolicies = ['Always', 'IfNotPresent', 'Never'] as const;

function pullPolicy(env: NodeJS.ProcessEnv, name: string): WorkerJobOptions['imagePullPolicy'] {
  const value = env[name];
  if (!value) return undefined;
  const policy = pullPolicies.find((p) => p === value);
  if (!policy) throw new SettingError(`${name} is ${JSON.stringify(value)}: one of ${pullPolicies.join(', ')}`);
  return policy;
}

// The chart's values allow quantities as numbers (`cpu: 1`), which JSON keeps.
const quantities = z.record(z.string(), z.union([z.string(), z.number().transform(String)])).optional();
const resourcesSchema = z.strictObject({ requests: quantities, limits: quantities });

function resources(env: NodeJS.ProcessEnv, name: string): WorkerJobOptions['resources'] {
  const value = env[name];
  if (!value) return undefined;
  try {
    return resourcesSchema.parse(JSON.parse(value));
  } catch {
    throw new SettingError(`${name} is not a JSON object of requests and limits: ${value}`);
  }
}

const podSecurityContextSchema = z.strictObject({
  runAsNonRoot: z.boolean().optional(),
  runAsUser: z.int().nonnegative().optional(),
  runAsGroup: z.int().nonnegative().optional(),
  fsGroup: z.int().nonnegative().optional(),
  supplementalGroups: z.array(z.int().nonnegative()).optional(),
  seccompProfile: z.strictObject({ type: z.string(), localhostProfile: z.string().optional() }).optional(),
});

function podSecurityContext(env: NodeJS.ProcessEnv, name: string): WorkerJobOptions['podSecurityContext'] {
  const value = env[name];
  if (!value) return undefined;
  try {
    return podSecurityContextSchema.parse(JSON.parse(value));
  } catch {
    throw new SettingError(`${name} is not a JSON Pod security context (runAsUser, runAsGroup, fsGroup ...): ${value}`);
  }
}

export function operatorEnv(env: NodeJS.ProcessEnv): OperatorEnv {
  const podNamespace = env.POD_NAMESPACE;
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
      imagePullPolicy: pullPolicy(env, 'STRATUS_WORKER_IMAGE_PULL_POLICY'),
      storeClaim: required(env, 'STRATUS_STORE_CLAIM', 'the worker Jobs mount this claim'),
      namespace:
        env.STRATUS_WORKER_NAMESPACE ||
        podNamespace ||
        required(env, 'STRATUS_WORKER_NAMESPACE', 'the worker Jobs run in the store claim namespace'),
      serviceAccountName: env.STRATUS_WORKER_SERVICE_ACCOUNT || undefined,
      resources: resources(env, 'STRATUS_WORKER_RESOURCES'),
      podSecurityContext: podSecurityContext(env, 'STRATUS_WORKER_POD_SECURITY_CONTEXT'),
      activeDeadlineSeconds: count(env, 'STRATUS_WORKER_ACTIVE_DEADLINE_SECONDS'),
      ttlSecondsAfterFinished: count(env, 'STRATUS_WORKER_TTL_SECONDS_AFTER_FINISHED'),
      history: {
        successful: count(env, 'STRATUS_WORKER_SUCCESSFUL_JOBS_HISTORY_LIMIT'),
        failed: count(env, 'STRATUS_WORKER_FAILED_JOBS_HISTORY_LIMIT'),
      },
      split: splitEnv(env),
    },
  };
}
