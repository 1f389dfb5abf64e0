import { describe, expect, it } from 'vitest';
import { apiServerEnv, kubernetesEnv, SettingError, operatorEnv } from './kubernetes-env.ts';

const operatorVariables = { POD_NAMESPACE: 'stratus', STRATUS_WORKER_IMAGE: 'stratus:1', STRATUS_STORE_CLAIM: 'store' };

describe('the settings of the Kubernetes-mode commands', () => {
  it.each([
    ['', []],
    ['a', ['a']],
    [' a, b ,,c', ['a', 'b', 'c']],
  ])('WATCH_NAMESPACE %j watches %j (empty: every namespace)', (value, namespaces) => {
    expect(kubernetesEnv({ WATCH_NAMESPACE: value }, 8000, 'PORT').namespaces).toEqual(namespaces);
  });

  it('has defaults for the store path, the port and the Lease', () => {
    const settings = operatorEnv({ ...operatorVariables, POD_NAME: 'operator-0' });
    expect(settings).toMatchObject({
      storePath: '/var/lib/stratus',
      port: 8080,
      lease: { name: 'stratus-operator', namespace: 'stratus', identity: 'operator-0' },
      worker: { image: 'stratus:1', storeClaim: 'store' },
    });
  });

  it('takes the Lease from LEADER_ELECTION_LEASE and LEADER_ELECTION_NAMESPACE', () => {
    const settings = operatorEnv({ ...operatorVariables, LEADER_ELECTION_LEASE: 'l', LEADER_ELECTION_NAMESPACE: 'n' });
    expect(settings.lease).toMatchObject({ name: 'l', namespace: 'n' });
  });

  it.each(Object.keys(operatorVariables))('refuses to start the operator without %s', (name) => {
    const env: NodeJS.ProcessEnv = { ...operatorVariables, [name]: undefined };
    expect(() => operatorEnv(env)).toThrow(new SettingError(`${name} is not set`).message);
  });

  it('splits ingestion attempts as STRATUS_WORKER_PERIODS_PER_PART, _MAX_PARTS and _PART_PARALLELISM say', () => {
    const settings = operatorEnv({
      ...operatorVariables,
      STRATUS_WORKER_PERIODS_PER_PART: '100',
      STRATUS_WORKER_MAX_PARTS: '16',
      STRATUS_WORKER_PART_PARALLELISM: '2',
    });
    expect(settings.worker.split).toEqual({ periodsPerPart: 100, maxParts: 16, parallelism: 2 });
    expect(() => operatorEnv({ ...operatorVariables, STRATUS_WORKER_MAX_PARTS: 'many' })).toThrow(SettingError);
  });

  it('runs the worker Jobs in POD_NAMESPACE unless STRATUS_WORKER_NAMESPACE names another', () => {
    expect(operatorEnv(operatorVariables).worker.namespace).toBe('stratus');
    expect(operatorEnv({ ...operatorVariables, STRATUS_WORKER_NAMESPACE: 'store' }).worker.namespace).toBe('store');
  });

  it('reads the worker Jobs settings', () => {
    const settings = operatorEnv({
      ...operatorVariables,
      STRATUS_WORKER_IMAGE_PULL_POLICY: 'Always',
      STRATUS_WORKER_SERVICE_ACCOUNT: 'stratus-worker',
      STRATUS_WORKER_RESOURCES: '{"requests":{"cpu":1},"limits":{"memory":"4Gi"}}',
      STRATUS_WORKER_POD_SECURITY_CONTEXT: '{"runAsNonRoot":true,"runAsUser":1000,"runAsGroup":1000,"fsGroup":2000}',
      STRATUS_WORKER_ACTIVE_DEADLINE_SECONDS: '600',
      STRATUS_WORKER_TTL_SECONDS_AFTER_FINISHED: '0',
      STRATUS_WORKER_SUCCESSFUL_JOBS_HISTORY_LIMIT: '2',
      STRATUS_WORKER_FAILED_JOBS_HISTORY_LIMIT: '5',
    });
    expect(settings.worker).toEqual({
      image: 'stratus:1',
      imagePullPolicy: 'Always',
      storeClaim: 'store',
      namespace: 'stratus',
      serviceAccountName: 'stratus-worker',
      resources: { requests: { cpu: '1' }, limits: { memory: '4Gi' } },
      podSecurityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 2000 },
      activeDeadlineSeconds: 600,
      ttlSecondsAfterFinished: 0,
      history: { successful: 2, failed: 5 },
      split: { periodsPerPart: 366, maxParts: 8, parallelism: 4 },
    });
  });

  it.each([
    ['STRATUS_WORKER_FAILED_JOBS_HISTORY_LIMIT', '-1'],
    ['STRATUS_WORKER_ACTIVE_DEADLINE_SECONDS', '1h'],
    ['STRATUS_WORKER_IMAGE_PULL_POLICY', 'always'],
    ['STRATUS_WORKER_RESOURCES', '{"cpu":"1"}'],
    ['STRATUS_WORKER_POD_SECURITY_CONTEXT', '{"runAsUser":"root"}'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => operatorEnv({ ...operatorVariables, [name]: value })).toThrow(SettingError);
    expect(() => operatorEnv({ ...operatorVariables, [name]: value })).toThrow(name);
  });
  it('gives the API server the first admin of STRATUS_FIRST_ADMIN_PASSWORD, named admin unless told', () => {
    expect(apiServerEnv({}).firstAdmin).toBeUndefined();
    expect(apiServerEnv({ STRATUS_FIRST_ADMIN_PASSWORD: 's3cret' }).firstAdmin).toEqual({
      username: 'admin',
      password: 's3cret',
    });
    expect(
      apiServerEnv({ STRATUS_FIRST_ADMIN_PASSWORD: 's3cret', STRATUS_FIRST_ADMIN_USERNAME: 'root', PORT: '9000' }),
    ).toMatchObject({ firstAdmin: { username: 'root', password: 's3cret' }, port: 9000 });
  });
});
