/**
 * The credentials of a worker's attempt. The job runner sets them in the environment from the Secrets that the
 * source or export names; they are never part of the attempt's input.
 */

/**
 * Env variables a worker reads basic credentials from: the `username` and `password` keys of the Secret that
 * the source's `credentialsSecret` parameter (or the export's target) names.
 */
export const CREDENTIALS_ENV = { username: 'STRATUS_CREDENTIALS_USERNAME', password: 'STRATUS_CREDENTIALS_PASSWORD' };

/** Env variable a worker reads an API token from: the `token` key of the Secret named by `tokenSecret`. */
export const TOKEN_ENV = 'STRATUS_CREDENTIALS_TOKEN';

/** What the environment holds of an attempt's credentials; each is absent when its Secret key was not set. */
export interface WorkerCredentials {
  username?: string;
  password?: string;
  token?: string;
}

export function workerCredentials(env: NodeJS.ProcessEnv = process.env): WorkerCredentials {
  return { username: env[CREDENTIALS_ENV.username], password: env[CREDENTIALS_ENV.password], token: env[TOKEN_ENV] };
}
