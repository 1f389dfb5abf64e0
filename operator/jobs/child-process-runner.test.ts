import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KindRef } from '../../core/cluster/objects.ts';
import { parseInstanceConfig } from '../../core/config/index.ts';
import { logSettings, workerLogEnv } from '../../core/logging/settings.ts';
import { LOG_STDOUT_FILE_ENV } from '../../core/logging/stdout.ts';
import { ChildProcessRunner } from './child-process-runner.ts';
import type { JobState } from './runner.ts';

/** A complete worker input for a source whose provider this instance does not have. */
const chirpsInput = {
  run: 'r',
  attempt: 1,
  datasetId: 'chirps',
  storageRoot: '/nonexistent',
  bbox: [0, 0, 1, 1],
  provider: { name: 'no-such-provider' },
  dataset: { name: 'CHIRPS', periodType: 'daily', format: 'zarr', zarrVersion: 2 },
  start: '2024-01-01',
  end: '2024-01-02',
  overwrite: false,
  keepVersions: [],
};

const owner = {
  kind: { apiVersion: 'v1', kind: 'X', plural: 'xs', namespaced: true, statusSubresource: true } as KindRef,
  name: 'x',
};

function finished(runner: ChildProcessRunner, name: string, namespace?: string, timeoutMs = 15_000): Promise<JobState> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not finish`)), timeoutMs);
    const check = () => {
      const state = runner.get(name, namespace);
      if (state && state.phase !== 'running') {
        clearTimeout(timer);
        resolve(state);
      }
    };
    runner.onChange(check);
    check();
  });
}

describe('child process job runner', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratus-runner-'));
    process.env.STRATUS_WORKER_TASK_MODULES = resolve(import.meta.dirname, '../../test/fixtures/worker/tasks.ts');
  });
  afterAll(async () => {
    delete process.env.STRATUS_WORKER_TASK_MODULES;
    await rm(dir, { recursive: true, force: true });
  });

  it('runs a task in a worker process and relays its progress and result', async () => {
    const runner = new ChildProcessRunner();
    const progress: number[] = [];
    runner.onChange((_job, state) => state.phase === 'running' && state.progress && progress.push(state.progress.done));
    runner.start({ name: 'count-1', task: 'count', input: { steps: 3, stepMs: 10 }, owner });
    runner.start({ name: 'count-1', task: 'count', input: { steps: 3, stepMs: 10 }, owner }); // idempotent
    const state = await finished(runner, 'count-1');
    expect(state).toMatchObject({ phase: 'succeeded', result: { counted: 3 }, progress: { done: 3, total: 3 } });
    expect(progress).toEqual([1, 2, 3]);
  });

  it('takes the end a worker reported even when its process ends before the message is read', async () => {
    const runner = new ChildProcessRunner();
    const names = Array.from({ length: 6 }, (_, i) => `exit-${i}`);
    for (const name of names) runner.start({ name, task: 'reportThenExit', input: { size: 10 }, owner });
    for (const name of names) {
      const state = await finished(runner, name);
      expect(state, name).toMatchObject({ phase: 'succeeded', result: { padding: 'x'.repeat(10) } });
    }
  });

  describe('a split attempt', { timeout: 60_000 }, () => {
    const partsDir = async (name: string) => {
      const path = join(dir, name);
      await mkdir(path);
      return path;
    };
    const seen = async (path: string) =>
      Promise.all(
        (await readdir(path))
          .filter((name) => name.startsWith('seen-'))
          .sort()
          .map(
            async (name) => JSON.parse(await readFile(join(path, name), 'utf8')) as { running: number; env: string },
          ),
      );

    it('runs every part, at most `parallelism` at once, and reports them as one attempt', async () => {
      const runner = new ChildProcessRunner();
      const path = await partsDir('parts-ok');
      const progress: number[] = [];
      runner.onChange((_job, state) => state.progress && progress.push(state.progress.done));
      runner.start({
        name: 'parts-1',
        task: 'part',
        // The first two parts wait for each other, so that they overlap however slowly processes start.
        input: { dir: path, steps: 3, stepMs: 40, startTogether: 2 },
        owner,
        parts: { count: 4, parallelism: 2 },
      });
      const state = await finished(runner, 'parts-1', undefined, 55_000);
      expect(state).toMatchObject({
        phase: 'succeeded',
        result: { completedBy: 3 },
        progress: { done: 12, total: 12 },
      });
      // Progress only grows, summed over the parts.
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      const parts = await seen(path);
      expect(parts.map((p) => p.env)).toEqual(['0', '1', '2', '3']);
      expect(Math.max(...parts.map((p) => p.running))).toBe(2);
    });

    it('stops the other parts once each when one fails, without piling up listeners', async () => {
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => warnings.push(warning);
      process.on('warning', onWarning);
      try {
        const runner = new ChildProcessRunner();
        const path = await partsDir('parts-many');
        runner.start({
          name: 'parts-many',
          task: 'part',
          // Every part starts, then part 0 fails; the other eleven end as they are stopped.
          input: { dir: path, steps: 200, stepMs: 50, failIndex: 0, failAfterSeen: 12, startTogether: 12 },
          owner,
          parts: { count: 12, parallelism: 12 },
        });
        const state = await finished(runner, 'parts-many', undefined, 50_000);
        expect(state).toMatchObject({ phase: 'failed', error: { type: 'UpstreamError' } });
        await runner.stop();
        expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      } finally {
        process.off('warning', onWarning);
      }
    });

    it('fails as soon as one part fails, and starts no further part', async () => {
      const runner = new ChildProcessRunner();
      const path = await partsDir('parts-fail');
      runner.start({
        name: 'parts-2',
        task: 'part',
        input: { dir: path, steps: 20, stepMs: 50, failIndex: 0, failAfterSeen: 2 },
        owner,
        parts: { count: 5, parallelism: 2 },
      });
      const state = await finished(runner, 'parts-2', undefined, 30_000);
      expect(state).toMatchObject({ phase: 'failed', error: { type: 'UpstreamError', message: 'part 0 failed' } });
      await new Promise((r) => setTimeout(r, 300));
      expect((await seen(path)).map((p) => p.env)).toEqual(['0', '1']);
    });

    it('cancels every running part', async () => {
      const runner = new ChildProcessRunner();
      const path = await partsDir('parts-cancel');
      runner.start({
        name: 'parts-3',
        task: 'part',
        input: { dir: path, steps: 200, stepMs: 20 },
        owner,
        parts: { count: 3, parallelism: 3 },
      });
      await new Promise<void>((r) => runner.onChange((_j, s) => (s.progress?.done ?? 0) >= 6 && r()));
      runner.cancel('parts-3', undefined);
      const state = await finished(runner, 'parts-3');
      expect(state.phase).toBe('cancelled');
      await runner.stop();
      expect((await readdir(path)).filter((name) => name.startsWith('running-'))).toEqual([]);
    });
  });

  it('cancels cooperatively between units of work', async () => {
    const runner = new ChildProcessRunner();
    runner.start({ name: 'count-2', task: 'count', input: { steps: 200, stepMs: 20 }, owner });
    await new Promise<void>((r) => runner.onChange((_j, s) => (s.progress?.done ?? 0) >= 2 && r()));
    runner.cancel('count-2', undefined);
    const state = await finished(runner, 'count-2');
    expect(state.phase).toBe('cancelled');
    expect(state.progress!.done).toBeLessThan(200);
  });

  it('kills a worker that ignores cancellation after the grace period', async () => {
    const runner = new ChildProcessRunner({ cancelGraceMs: 200 });
    runner.start({ name: 'stubborn', task: 'stubborn', input: null, owner });
    await new Promise((r) => setTimeout(r, 300));
    runner.cancel('stubborn', undefined);
    const state = await finished(runner, 'stubborn');
    expect(state).toMatchObject({
      phase: 'failed',
      error: { type: 'WorkerCrashed', message: expect.stringMatching(/SIGKILL/) },
    });
  });

  it('reports a crashed worker and an unknown task as failed attempts', async () => {
    const runner = new ChildProcessRunner();
    runner.start({ name: 'crash', task: 'crash', input: null, owner });
    expect(await finished(runner, 'crash')).toMatchObject({
      phase: 'failed',
      error: { type: 'WorkerCrashed', message: expect.stringMatching(/exit code 3/) },
    });
    runner.start({ name: 'nope', task: 'no-such-task', input: null, owner });
    expect(await finished(runner, 'nope')).toMatchObject({ phase: 'failed', error: { type: 'UnknownTask' } });
  });

  it('passes Secret keys named by the job as environment variables, and fails a job whose Secret is missing', async () => {
    const secrets: Record<string, string> = { 'default/creds/password': 'tok-123' };
    const runner = new ChildProcessRunner({
      resolveSecret: async (namespace, name, key) => secrets[`${namespace}/${name}/${key}`],
    });
    const env = [{ name: 'PROVIDER_PASSWORD', secretKeyRef: { name: 'creds', key: 'password' } }];
    const namespaced = { ...owner, namespace: 'default' };
    runner.start({ name: 'env', task: 'env', input: { name: 'PROVIDER_PASSWORD' }, owner: namespaced, env });
    expect(await finished(runner, 'env', 'default')).toMatchObject({
      phase: 'succeeded',
      result: { value: 'tok-123' },
    });
    runner.start({
      name: 'no-secret',
      task: 'env',
      input: { name: 'X' },
      owner: namespaced,
      env: [{ name: 'X', secretKeyRef: { name: 'absent', key: 'password' } }],
    });
    expect(await finished(runner, 'no-secret', 'default')).toMatchObject({
      phase: 'failed',
      error: { type: 'SecretNotFound', message: 'Secret absent has no key password (for X)' },
    });
  });

  it('keeps attempts of one name apart when their runs are in two namespaces', async () => {
    const runner = new ChildProcessRunner();
    for (const [namespace, steps] of [
      ['a', 1],
      ['b', 2],
    ] as const)
      runner.start({ name: 'same', task: 'count', input: { steps, stepMs: 1 }, owner: { ...owner, namespace } });
    expect((await finished(runner, 'same', 'a')).result).toEqual({ counted: 1 });
    expect((await finished(runner, 'same', 'b')).result).toEqual({ counted: 2 });
  });

  it('forgets the attempts of a run that is gone: ended ones at once, a running one once it ended', async () => {
    const runner = new ChildProcessRunner();
    const other = { ...owner, name: 'y' };
    runner.start({ name: 'x-a1', task: 'count', input: { steps: 1, stepMs: 1 }, owner });
    runner.start({ name: 'y-a1', task: 'count', input: { steps: 1, stepMs: 1 }, owner: other });
    await finished(runner, 'x-a1');
    await finished(runner, 'y-a1');
    runner.start({ name: 'x-a2', task: 'count', input: { steps: 3, stepMs: 50 }, owner });
    const ended = new Promise<void>((r) =>
      runner.onChange((job, s) => job.name === 'x-a2' && s.phase !== 'running' && r()),
    );
    runner.forgetOwner({ ...owner });
    expect(runner.get('x-a1', undefined)).toBeUndefined();
    // Still the runner's to report: the planner may look at it until it ended.
    expect(runner.get('x-a2', undefined)?.phase).toBe('running');
    await ended;
    expect(runner.get('x-a2', undefined)).toBeUndefined();
    expect(runner.get('y-a1', undefined)?.phase).toBe('succeeded');
    // Another kind's run of the same name is another owner.
    runner.forgetOwner({ ...other, kind: { ...other.kind, kind: 'Z' } });
    expect(runner.get('y-a1', undefined)?.phase).toBe('succeeded');
  });

  it('fails an ingestion whose provider this instance does not have, with a typed error', async () => {
    const runner = new ChildProcessRunner();
    runner.start({ name: 'ing', task: 'ingestion', input: chirpsInput, owner });
    expect(await finished(runner, 'ing')).toMatchObject({
      phase: 'failed',
      error: { type: 'ProviderUnavailable', message: 'No provider named no-such-provider on this instance.' },
    });
    runner.start({ name: 'bad', task: 'ingestion', input: { source: 'chirps' }, owner });
    expect(await finished(runner, 'bad')).toMatchObject({ phase: 'failed', error: { type: 'InvalidInput' } });
  });
});

describe('worker entry point as a Job container', () => {
  it('runs one task from --task and --input and reports JSON lines on stdout, failing the container when the task fails', async () => {
    const { spawnSync } = await import('node:child_process');
    const result = spawnSync(
      process.execPath,
      [
        resolve(import.meta.dirname, '../worker/main.ts'),
        '--task',
        'ingestion',
        '--input',
        JSON.stringify({ ...chirpsInput, provider: { name: 'not-here-either' } }),
      ],
      { encoding: 'utf8', env: { ...process.env, STRATUS_WORKER_TASK_MODULES: '' } },
    );
    expect(result.status).toBe(1);
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      {
        type: 'error',
        errorType: 'ProviderUnavailable',
        message: 'No provider named not-here-either on this instance.',
      },
    ]);
  });

  it('logs its run to standard output beside its messages, with the run and the request it came from', async () => {
    const { spawnSync } = await import('node:child_process');
    const settings = logSettings(parseInstanceConfig('', 'f'), { home: undefined, stdout: true });
    const result = spawnSync(
      process.execPath,
      [
        resolve(import.meta.dirname, '../worker/main.ts'),
        '--task',
        'sync',
        '--input',
        JSON.stringify({ ...chirpsInput, provider: { name: 'not-here' } }),
      ],
      {
        encoding: 'utf8',
        env: {
          ...process.env,
          STRATUS_WORKER_TASK_MODULES: '',
          // Its standard output, not the test file's log (test/support/test-logs.setup.ts), is what is tested.
          [LOG_STDOUT_FILE_ENV]: '',
          ...workerLogEnv(settings, { run: 'climate/run-7', job: 'run-7-a1', xRequestID: 'req7', sessionId: '' }),
        },
      },
    );
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((l) => l.type === 'error')).toHaveLength(1);
    const logged = lines.filter((l) => l.msg !== undefined);
    expect(logged.map((l) => l.msg)).toEqual(['worker started', 'No provider named not-here on this instance.']);
    for (const line of logged)
      expect(line).toMatchObject({ module: 'data-sync', run: 'climate/run-7', job: 'run-7-a1', xRequestID: 'req7' });
    expect(logged[1]).toMatchObject({ level: 50, errorType: 'ProviderUnavailable' });
  });
});
