import { describe, expect, it } from 'vitest';
import { kubernetesEnv, MissingSettingError, operatorEnv } from './kubernetes-env.ts';

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
    expect(() => operatorEnv(env)).toThrow(new MissingSettingError(`${name} is not set`).message);
  });
});
