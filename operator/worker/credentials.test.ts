import { describe, expect, it } from 'vitest';
import { CREDENTIALS_ENV, TOKEN_ENV, workerCredentials } from './credentials.ts';

describe('workerCredentials', () => {
  it('reads the username, password and token the job runner set from the Secrets', () => {
    const env = { [CREDENTIALS_ENV.username]: 'admin', [CREDENTIALS_ENV.password]: 'district', [TOKEN_ENV]: 'd2pat_1' };
    expect(workerCredentials(env)).toEqual({ username: 'admin', password: 'district', token: 'd2pat_1' });
  });

  it('leaves out what the environment does not hold', () => {
    expect(workerCredentials({ [CREDENTIALS_ENV.username]: 'admin', OTHER: 'x' })).toEqual({ username: 'admin' });
  });
});
