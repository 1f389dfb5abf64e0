/**
 * The OAuth2Client controller: its planner, and the controller over an embedded store judging clients stored
 * directly (as kubectl or GitOps would apply them), by the same rules as the client administration.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../../core/cluster/embedded/index.ts';
import type { KubeObject } from '../../../core/cluster/objects.ts';
import type { Condition } from '../../../core/resources/conditions.ts';
import { oauth2ClientKind, type OAuth2Client } from '../../../core/resources/oauth2-client/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { addClient } from '../../../test/support/auth-context.ts';
import { eventually } from '../../../test/support/eventually.ts';
import type { Action, Plan } from '../../runtime/actions.ts';
import { Controller } from '../../runtime/controller.ts';
import { controllerMetrics } from '../../runtime/metrics.ts';
import { oauth2ClientController } from './controller.ts';
import { planOAuth2Client } from './plan.ts';

const now = new Date('2026-11-22T12:00:00Z');

const client = (spec: Partial<OAuth2Client['spec']>, status?: OAuth2Client['status']): OAuth2Client => ({
  apiVersion: API_VERSION,
  kind: 'OAuth2Client',
  metadata: { name: 'cli', namespace: 'default', generation: 3 } as OAuth2Client['metadata'],
  spec: {
    clientId: 'cli',
    clientAuthenticationMethods: ['none'],
    authorizationGrantTypes: ['authorization_code'],
    redirectUris: ['http://127.0.0.1:8765/callback'],
    scopes: ['openid'],
    clientSettings: { requireProofKey: true, requireAuthorizationConsent: true },
    ...spec,
  },
  ...(status && { status }),
});

const observed = { allowlist: ['stratus://oauth'], rivals: [] };
const conditionsOf = (plan: Plan): Condition[] =>
  (plan.actions[0] as Extract<Action, { kind: 'patchStatus' }>).status.conditions as Condition[];

describe('planning an OAuth2Client', () => {
  it('makes a client that keeps the rules Ready, for its generation', () => {
    const plan = planOAuth2Client(client({}), observed, now);
    expect(plan.actions).toEqual([
      {
        kind: 'patchStatus',
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'ValidClient',
              message: 'The client keeps the client rules.',
              observedGeneration: 3,
              lastTransitionTime: now.toISOString(),
            },
          ],
        },
      },
    ]);
  });

  it('stalls a client that breaks rules, listing each failure, with one Warning event until the failures change', () => {
    const bad = client({ authorizationGrantTypes: ['client_credentials'], redirectUris: ['myapp://cb'] });
    const plan = planOAuth2Client(bad, { ...observed, rivals: ['other'] }, now);
    const status = { conditions: conditionsOf(plan) };
    expect(status.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Ready', 'False', 'InvalidClient'],
      ['Stalled', 'True', 'InvalidClient'],
    ]);
    const message = status.conditions[0]!.message;
    expect(message).toMatch(/^The authorization server refuses this client: /);
    expect(message).toContain("The client id 'cli' is not unique: it is also claimed by other.");
    expect(message).toContain("Grant types 'client_credentials' are not allowed");
    expect(message).toContain("The redirect URI 'myapp://cb' uses a custom scheme");
    expect(plan.actions[1]).toMatchObject({ kind: 'event', type: 'Warning', reason: 'InvalidClient', message });
    const again = planOAuth2Client({ ...bad, status }, { ...observed, rivals: ['other'] }, now);
    expect(again.actions.map((a) => a.kind)).toEqual(['patchStatus']);
  });

  it('keeps a client stored without PKCE Ready, flagged with its own reason and no Warning (spec 2)', () => {
    const plan = planOAuth2Client(
      client({ clientSettings: { requireProofKey: false, requireAuthorizationConsent: true } }),
      observed,
      now,
    );
    expect(conditionsOf(plan).map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Ready', 'True', 'StoredWithoutProofKey'],
    ]);
    expect(conditionsOf(plan)[0]!.message).toMatch(/used as stored, without PKCE/);
    expect(plan.actions.map((a) => a.kind)).toEqual(['patchStatus']);
  });

  it('lets the registrar hold the reserved id and client_credentials', () => {
    const registrar = client({
      clientId: 'system-dcr-registrar-client',
      authorizationGrantTypes: ['client_credentials'],
    });
    registrar.metadata.name = 'system-dcr-registrar-client';
    const plan = planOAuth2Client(registrar, observed, now);
    expect(conditionsOf(plan)[0]).toMatchObject({
      status: 'True',
    });
  });
});

describe('the OAuth2Client controller over an embedded store', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(): Promise<EmbeddedCluster> {
    const dataDir = await mkdtemp(join(tmpdir(), 'stratus-oauth2-client-'));
    const cluster = await openEmbeddedCluster({ dataDir });
    const controller = new Controller(oauth2ClientController(), {
      cluster,
      metrics: controllerMetrics(new Registry()),
      logger: pino({ level: 'silent' }),
    });
    controller.start();
    cleanups.push(async () => {
      await cluster.close();
      await rm(dataDir, { recursive: true, force: true });
    });
    cleanups.push(() => controller.stop());
    return cluster;
  }

  const readyOf = (cluster: EmbeddedCluster, name: string, want: (ready: Condition) => boolean) =>
    eventually(async () => {
      const stored = await cluster.get<OAuth2Client & KubeObject>(oauth2ClientKind, name, 'default');
      const ready = stored?.status?.conditions?.find((c) => c.type === 'Ready');
      return ready && ready.observedGeneration === stored!.metadata.generation && want(ready) ? ready : undefined;
    });

  it('shows why a client applied directly breaks the rules, and Ready once it is corrected', async () => {
    const cluster = await start();
    await addClient(cluster, { clientId: 'scripts', authorizationGrantTypes: ['client_credentials'] });
    const invalid = await readyOf(cluster, 'scripts', (c) => c.status === 'False');
    expect(invalid).toMatchObject({ reason: 'InvalidClient' });
    expect(invalid.message).toContain('client_credentials belongs to the internal registrar client');
    await cluster.patch(
      oauth2ClientKind,
      'scripts',
      { type: 'merge', body: { spec: { authorizationGrantTypes: ['authorization_code'] } } },
      'default',
    );
    expect(await readyOf(cluster, 'scripts', (c) => c.status === 'True')).toMatchObject({ reason: 'ValidClient' });
  });

  it('judges a client id claimed twice, and clears the other claimant when one goes', async () => {
    const cluster = await start();
    // Two resources, neither named like the id: both ambiguous.
    for (const name of ['first', 'second'])
      await cluster.create<OAuth2Client & KubeObject>(oauth2ClientKind, {
        apiVersion: API_VERSION,
        kind: 'OAuth2Client',
        metadata: { name, namespace: 'default' },
        spec: client({ clientId: 'shared id' }).spec,
      });
    expect((await readyOf(cluster, 'first', (c) => c.status === 'False')).message).toContain('also claimed by second');
    await readyOf(cluster, 'second', (c) => c.status === 'False');
    await cluster.delete(oauth2ClientKind, 'second', 'default');
    await readyOf(cluster, 'first', (c) => c.status === 'True');
  });
});
