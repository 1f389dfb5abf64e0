import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { jobKind } from '../../../core/cluster/builtin-kinds.ts';
import { ApiError } from '../../../core/cluster/errors.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { ingestionKind } from '../../../core/resources/ingestion/schema.ts';
import type { RunErrorRecord } from '../../../core/runs/errors.ts';
import type { JobSpec } from '../runner.ts';
import { createAttemptJob, refusalOf } from './job-creation.ts';
import type { BatchJob } from './job-manifest.ts';

const jobs = { namespace: 'default', image: 'stratus:test', store: { claimName: 'store', mountPath: '/store' } };
const spec = (extra: Partial<JobSpec> = {}): JobSpec => ({
  name: 'run-a1',
  task: 'ingestion',
  input: { source: 'sample' },
  owner: { kind: ingestionKind, name: 'run', namespace: 'default' },
  ...extra,
});
const credentials = [{ name: 'TOKEN', secretKeyRef: { name: 'creds', key: 'token' } }];

describe('the refusals of a worker Job, which no retry of its creation changes', () => {
  it.each<[string, JobSpec, RunErrorRecord['type'] | undefined]>([
    ['an input too large for an argument', spec({ input: 'x'.repeat(200_000) }), 'InputTooLarge'],
    [
      "credentials from a Secret of another namespace than the Jobs'",
      spec({ env: credentials, owner: { ...spec().owner, namespace: 'team' } }),
      'CredentialsAcrossNamespaces',
    ],
    ["credentials from a Secret of the Jobs' namespace", spec({ env: credentials }), undefined],
    ['a plain attempt', spec(), undefined],
  ])('%s: %s', (_name, attempt, code) => {
    expect(refusalOf(attempt, jobs)?.type).toBe(code);
  });
});

/**
 * The two calls a Job's creation makes, on Jobs kept in a map as the API server keeps them (a second creation of
 * one name is AlreadyExists); `fail` decides whether a creation fails before the server saw it or after it stored it.
 */
function stubCluster(fail: (call: number) => 'before' | 'after' | undefined = () => undefined) {
  const jobs = new Map<string, BatchJob>();
  let calls = 0;
  let runExists = true;
  const cluster = {
    get: async () => (runExists ? { metadata: { name: 'run', namespace: 'default', uid: 'run-uid' } } : undefined),
    create: async (kind: unknown, object: BatchJob) => {
      expect(kind).toBe(jobKind);
      const failure = fail(++calls);
      if (failure === 'before') throw new ApiError('InternalError', 'the proxy answered 500');
      if (jobs.has(object.metadata.name)) throw new ApiError('AlreadyExists', `${object.metadata.name} exists`);
      jobs.set(object.metadata.name, object);
      if (failure === 'after') throw new TypeError('fetch failed: the connection closed before the answer');
      return object;
    },
  } as unknown as Cluster;
  return { cluster, calls: () => calls, jobNames: () => [...jobs.keys()], deleteRun: () => (runExists = false) };
}

describe("creating an attempt's Job", () => {
  let failures: RunErrorRecord[];
  let wanted: boolean;

  beforeEach(() => {
    failures = [];
    wanted = true;
  });

  const create = (attempt: JobSpec, cluster: Cluster) =>
    createAttemptJob(attempt, {
      cluster,
      logger: pino({ level: 'silent' }),
      job: jobs,
      createRetryMs: 10,
      signal: new AbortController().signal,
      wanted: () => wanted,
      fail: (error) => failures.push(error),
    });

  it('fails the attempt at once on a refusal, creating no Job', async () => {
    const stub = stubCluster();
    await create(spec({ input: 'x'.repeat(200_000) }), stub.cluster);
    expect(failures).toEqual([{ type: 'InputTooLarge', message: "the attempt's input exceeds 100000 bytes" }]);
    expect(stub.calls()).toBe(0);
  });

  it('creates the Job for the run, named after the attempt', async () => {
    const stub = stubCluster();
    await create(spec(), stub.cluster);
    expect(stub.jobNames()).toEqual(['run-a1']);
    expect(failures).toEqual([]);
  });

  it('retries a creation that failed for a reason a retry can cure until the Job exists, never failing', async () => {
    const stub = stubCluster((call) => (call <= 2 ? 'before' : undefined));
    await create(spec(), stub.cluster);
    expect(stub.calls()).toBe(3);
    expect(stub.jobNames()).toEqual(['run-a1']);
    expect(failures).toEqual([]);
  });

  it('counts a creation the server committed before the answer was lost as created: one Job', async () => {
    const stub = stubCluster((call) => (call === 1 ? 'after' : undefined));
    await create(spec(), stub.cluster);
    expect(stub.calls()).toBe(2);
    expect(stub.jobNames()).toEqual(['run-a1']);
    expect(failures).toEqual([]);
  });

  it('fails the attempt with JobNotCreated when the refusal is one a retry cannot change', async () => {
    const stub = stubCluster();
    stub.deleteRun();
    await create(spec(), stub.cluster);
    expect(failures).toEqual([{ type: 'JobNotCreated', message: expect.stringContaining('is gone') }]);
  });

  it('stops retrying, without failing, once the attempt no longer wants its Job', async () => {
    const stub = stubCluster((call) => {
      if (call === 2) wanted = false;
      return 'before';
    });
    await create(spec(), stub.cluster);
    expect(stub.calls()).toBe(2);
    expect(stub.jobNames()).toEqual([]);
    expect(failures).toEqual([]);
  });
});
