/**
 * The Argo CD health checks of docs/gitops.md, run for real: Lua 5.1 (Argo CD's gopher-lua implements 5.1, from
 * Debian's lua5.1, see scripts/install-packaging-tools.sh) evaluates each kind's snippet, taken from the doc's
 * argocd-cm block, against statuses written by the operator's own condition code.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { controllerDefinitions } from '../../operator/manager.ts';
import { readinessConditions, type Readiness } from '../../operator/runtime/readiness.ts';

const run = promisify(execFile);
const prefix = 'resource.customizations.health.climate.stratus.dev_';

/** The data of the doc's argocd-cm ConfigMap: the one yaml block that names it. */
async function argocdCm(): Promise<Record<string, string>> {
  const doc = await readFile(join(import.meta.dirname, '../../docs/gitops.md'), 'utf8');
  const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((b) => /name: argocd-cm/.test(b));
  expect(blocks).toHaveLength(1);
  return (parse(blocks[0]!) as { data: Record<string, string> }).data;
}

/** A JSON value as a Lua table constructor; null becomes nil, as Argo CD passes it. */
function lua(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') {
    // JSON's string escapes are Lua's too for printable ASCII; Lua 5.1 has no \u escapes.
    if (/[^\x20-\x7e]/.test(value)) throw new Error(`fixture string outside printable ASCII: ${value}`);
    return JSON.stringify(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(lua).join(', ')}}`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([key, v]) => `[${JSON.stringify(key)}] = ${lua(v)}`).join(', ')}}`;
}

/** Runs `snippet` as Argo CD does: the body of a function of the global `obj`, returning {status, message}. */
async function health(snippet: string, obj: unknown): Promise<{ status: string; message: string }> {
  const script = `obj = ${lua(obj)}\nlocal hs = (function()\n${snippet}\nend)()\nio.write(hs.status, "\\n", hs.message)`;
  const { stdout } = await run('lua5.1', ['-e', script]);
  const [status, message] = stdout.split('\n') as [string, string];
  return { status, message };
}

const now = new Date('2026-01-15T09:00:00Z');
const object = (generation: number, status?: unknown) => ({
  apiVersion: 'climate.stratus.dev/v1alpha1',
  metadata: { name: 'x', namespace: 'default', generation },
  ...(status === undefined ? {} : { status }),
});
/** The status the operator writes for a summary, computed at generation `observed`. */
const summarized = (readiness: Readiness, observed = 1, previous?: ReturnType<typeof readinessConditions>) => ({
  observedGeneration: observed,
  conditions: readinessConditions(previous, readiness, observed, now),
});
const succeeded: Readiness = { state: 'ready', reason: 'Succeeded', message: 'The run succeeded on attempt 1.' };
const started: Readiness = { state: 'progressing', reason: 'Started', message: 'Attempt 1 is running.' };
const crashed: Readiness = { state: 'stalled', reason: 'WorkerCrashed', message: 'The worker exited with code 137.' };

const cases: [string, unknown, { status: string; message: string }][] = [
  ['no status', object(1), { status: 'Progressing', message: 'Waiting for the operator to report a status' }],
  [
    'a status without conditions',
    object(1, { phase: 'accepted' }),
    { status: 'Progressing', message: 'Waiting for the operator to report a status' },
  ],
  [
    'Ready True',
    object(1, summarized(succeeded)),
    { status: 'Healthy', message: 'Succeeded: The run succeeded on attempt 1.' },
  ],
  ['in progress', object(1, summarized(started)), { status: 'Progressing', message: 'Started: Attempt 1 is running.' }],
  [
    'in progress again after Ready',
    object(1, summarized(started, 1, summarized(succeeded).conditions)),
    { status: 'Progressing', message: 'Started: Attempt 1 is running.' },
  ],
  [
    'Ready False and Stalled with a failure reason',
    object(1, summarized(crashed)),
    { status: 'Degraded', message: 'WorkerCrashed: The worker exited with code 137.' },
  ],
  [
    'Ready False alone',
    object(1, {
      observedGeneration: 1,
      conditions: [
        { type: 'Ready', status: 'False', reason: 'SourceNotFound', message: 'DataSource x does not exist.' },
      ],
    }),
    { status: 'Degraded', message: 'SourceNotFound: DataSource x does not exist.' },
  ],
  [
    'Ready True for an older generation',
    object(2, summarized(succeeded, 1)),
    { status: 'Progressing', message: 'Waiting for the operator to observe generation 2' },
  ],
];

const data = await argocdCm();

describe('Argo CD health checks in docs/gitops.md', () => {
  it('cover exactly the kinds the operator reconciles', () => {
    const documented = Object.keys(data)
      .filter((key) => key.startsWith(prefix))
      .map((key) => key.slice(prefix.length));
    const reconciled = controllerDefinitions({ instance: { storageRoot: '/unused', bbox: [0, 0, 1, 1] } }).map(
      (definition) => definition.kind.kind,
    );
    expect(documented.sort()).toEqual(reconciled.sort());
  });

  const snippets = Object.entries(data).filter(([key]) => key.startsWith(prefix));
  it.each(
    snippets.flatMap(([key, snippet]) =>
      cases.map(([name, obj, want]) => [key.slice(prefix.length), name, snippet, obj, want]),
    ),
  )('%s: %s', async (_kind, _name, snippet, obj, want) => {
    expect(await health(snippet as string, obj)).toEqual(want);
  });
});
