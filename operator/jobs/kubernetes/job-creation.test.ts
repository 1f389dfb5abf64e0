import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobKind } from '../../../core/cluster/builtin-kinds.ts';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../../core/cluster/embedded/index.ts';
import { ApiError } from '../../../core/cluster/errors.ts';
import type { Cluster } from '../../../core/cluster/port.ts';
import { ingestionKind } from '../../../core/resources/ingestion/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
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

describe("creating an attempt's Job", () => {
  let dataDir: string;
  let cluster: EmbeddedCluster;
  let failures: RunErrorRecord[];
  let wanted: boolean;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stratus-job-creation-'));
    cluster = await openEmbeddedCluster({ dataDir });
    await cluster.create(ingestionKind, {
      apiVersion: API_VERSION,
      kind: 'Ingestion',
      metadata: { name: 'run', namespace: 'default' },
      spec: { source: 'sample' },
    });
    failures = [];
    wanted = true;
  });
  afterEach(async () => {
    await cluster.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const create = (attempt: JobSpec, on: Cluster = cluster) =>
    createAttemptJob(attempt, {
      cluster: on,
      logger: pino({ level: 'silent' }),
      job: jobs,
      createRetryMs: 10,
      signal: new AbortController().signal,
      wanted: () => wanted,
      fail: (error) => failures.push(error),
    });
  const jobNames = async () =>
    (await cluster.list<BatchJob>(jobKind, { namespace: 'default' })).items.map((job) => job.metadata.name);

  /** The cluster with Job creations failing as `fail` says: before the server saw them, or after it stored them. */
  const failingCreates = (fail: (call: number) => 'before' | 'after' | undefined) => {
    let calls = 0;
    const createJob = async (kind: typeof jobKind, object: BatchJob, writeOptions: unknown) => {
      const failure = kind === jobKind ? fail(++calls) : undefined;
      if (failure === 'before') throw new ApiError('InternalError', 'the proxy answered 500');
      const created = await cluster.create(kind, object, writeOptions as never);
      if (failure === 'after') throw new TypeError('fetch failed: the connection closed before the answer');
      return created;
    };
    const failing = new Proxy(cluster, {
      get: (target, member) => {
        if (member === 'create') return createJob;
        const value: unknown = Reflect.get(target, member);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { cluster: failing, calls: () => calls };
  };

  it('fails the attempt at once on a refusal, creating no Job', async () => {
    await create(spec({ input: 'x'.repeat(200_000) }));
    expect(failures).toEqual([{ type: 'InputTooLarge', message: "the attempt's input exceeds 100000 bytes" }]);
    expect(await jobNames()).toEqual([]);
  });

  it('retries a creation that failed for a reason a retry can cure until the Job exists, never failing', async () => {
    const connection = failingCreates((call) => (call <= 2 ? 'before' : undefined));
    await create(spec(), connection.cluster);
    expect(connection.calls()).toBe(3);
    expect(await jobNames()).toEqual(['run-a1']);
    expect(failures).toEqual([]);
  });

  it('counts a creation the server committed before the answer was lost as created: one Job', async () => {
    const connection = failingCreates((call) => (call === 1 ? 'after' : undefined));
    await create(spec(), connection.cluster);
    expect(connection.calls()).toBe(2);
    expect(await jobNames()).toEqual(['run-a1']);
    expect(failures).toEqual([]);
  });

  it('fails the attempt with JobNotCreated when the refusal is one a retry cannot change', async () => {
    await cluster.delete(ingestionKind, 'run', 'default');
    await create(spec());
    expect(failures).toEqual([{ type: 'JobNotCreated', message: expect.stringContaining('is gone') }]);
  });

  it('stops retrying, without failing, once the attempt no longer wants its Job', async () => {
    const connection = failingCreates((call) => {
      if (call === 2) wanted = false;
      return 'before';
    });
    await create(spec(), connection.cluster);
    expect(connection.calls()).toBe(2);
    expect(await jobNames()).toEqual([]);
    expect(failures).toEqual([]);
  });
});
