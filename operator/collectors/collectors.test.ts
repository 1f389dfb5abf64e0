import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { COLLECTION_GRACE_MS } from '../../core/auth/store/expiry.ts';
import { Sessions } from '../../core/auth/store/sessions.ts';
import { useClientAssertion } from '../../core/auth/store/client-assertions.ts';
import { eventKind } from '../../core/cluster/builtin-kinds.ts';
import { openEmbeddedCluster } from '../../core/cluster/embedded/index.ts';
import { microTime, type KubeObject } from '../../core/cluster/objects.ts';
import { API_VERSION } from '../../core/resources/kind.ts';
import { oauth2AuthorizationKind } from '../../core/resources/oauth2-authorization/schema.ts';
import { oauth2ClientAssertionKind } from '../../core/resources/oauth2-client-assertion/schema.ts';
import { sessionKind } from '../../core/resources/session/schema.ts';
import { startAuthStoreCollector } from './auth-store.ts';
import { EVENT_TTL_MS, startEventCollector } from './events.ts';

async function store() {
  const dir = await mkdtemp(join(tmpdir(), 'stratus-collector-'));
  const cluster = await openEmbeddedCluster({ dataDir: dir });
  onTestFinished(async () => {
    await cluster.close();
    await rm(dir, { recursive: true, force: true });
  });
  return cluster;
}

const hour = 3_600_000;
const record = (token: string) => ({ hash: 'h'.repeat(43), issuedAt: token, expiresAt: token, invalidated: false });

describe('collector of expired authorization records', () => {
  it('removes, on the leader, the records whose last token expired, and keeps the live ones', async () => {
    const cluster = await store();
    const now = new Date();
    const past = new Date(now.getTime() - hour).toISOString();
    const future = new Date(now.getTime() + hour).toISOString();
    const sessions = new Sessions(cluster, 'default');
    await sessions.start('ada', new Date(now.getTime() - 2 * hour), 3600); // ended an hour ago
    await sessions.start('ada', now); // live
    await useClientAssertion(cluster, 'default', {
      clientId: 'c',
      jti: 'old',
      expiresAt: new Date(now.getTime() - hour),
    });
    await useClientAssertion(cluster, 'default', {
      clientId: 'c',
      jti: 'new',
      expiresAt: new Date(now.getTime() + 60_000),
    });
    for (const [name, refreshExpiry] of [
      ['authz-gone', past],
      ['authz-live', future],
    ] as const) {
      await cluster.create(oauth2AuthorizationKind, {
        apiVersion: API_VERSION,
        kind: 'OAuth2Authorization',
        metadata: { name, namespace: 'default' },
        spec: {
          clientId: 'c',
          principalName: 'ada',
          grantType: 'authorization_code',
          scopes: [],
          accessToken: record(past),
          refreshToken: record(refreshExpiry),
        },
      });
    }
    const registry = new Registry();
    let leader = false;
    const collector = startAuthStoreCollector({
      cluster,
      logger: pino({ level: 'silent' }),
      leadership: { isLeader: () => leader },
      registry,
      intervalMs: 3_600_000,
      firstSweepDelayMs: 3_600_000,
    });
    onTestFinished(() => collector.stop());
    expect(await collector.sweep()).toEqual([]);
    expect((await cluster.list(sessionKind)).items).toHaveLength(2);

    leader = true;
    const removed = await collector.sweep();
    expect(removed.map((r) => r.ref.kind).sort()).toEqual(['OAuth2Authorization', 'OAuth2ClientAssertion', 'Session']);
    expect((await cluster.list(sessionKind)).items).toHaveLength(1);
    expect((await cluster.list(oauth2ClientAssertionKind)).items).toHaveLength(1);
    expect((await cluster.list(oauth2AuthorizationKind)).items.map((a) => a.metadata.name)).toEqual(['authz-live']);
    expect(await registry.metrics()).toMatch(/stratus_auth_records_collected_total\{kind="Session"\} 1/);
    expect(await collector.sweep()).toEqual([]);
  });

  it('keeps a record expired within the grace period', async () => {
    const cluster = await store();
    const now = new Date();
    const sessions = new Sessions(cluster, 'default');
    await sessions.start('ada', new Date(now.getTime() - 3600_000 - COLLECTION_GRACE_MS / 2), 3600);
    const collector = startAuthStoreCollector({
      cluster,
      logger: pino({ level: 'silent' }),
      leadership: { isLeader: () => true },
      registry: new Registry(),
      intervalMs: 3_600_000,
      firstSweepDelayMs: 3_600_000,
      now: () => now,
    });
    onTestFinished(() => collector.stop());
    expect(await collector.sweep()).toEqual([]);
    expect((await cluster.list(sessionKind)).items).toHaveLength(1);
  });
});

describe('collector of expired events (embedded mode)', () => {
  it('removes the Events last seen more than an hour ago, and keeps the others', async () => {
    const cluster = await store();
    const now = new Date();
    const at = (ms: number) => microTime(new Date(now.getTime() - ms));
    const event = (name: string, eventTime: string, lastObservedTime?: string) =>
      cluster.create<KubeObject>(eventKind, {
        apiVersion: eventKind.apiVersion,
        kind: eventKind.kind,
        metadata: { name, namespace: 'default' },
        eventTime,
        ...(lastObservedTime && { series: { count: 2, lastObservedTime } }),
        reason: 'Test',
        note: name,
        type: 'Normal',
      });
    await event('old', at(EVENT_TTL_MS + 60_000));
    await event('recent', at(60_000));
    await event('repeated-lately', at(EVENT_TTL_MS * 3), at(60_000));
    const registry = new Registry();
    const collector = startEventCollector({
      cluster,
      logger: pino({ level: 'silent' }),
      leadership: { isLeader: () => true },
      registry,
      firstSweepDelayMs: 3_600_000,
    });
    onTestFinished(() => collector.stop());
    expect((await collector.sweep()).map((r) => r.name)).toEqual(['old']);
    const left = (await cluster.list(eventKind, { namespace: 'default' })).items.map((e) => e.metadata.name).sort();
    expect(left).toEqual(['recent', 'repeated-lately']);
    expect(await registry.metrics()).toMatch(/stratus_events_collected_total\{kind="Event"\} 1/);
  });
});
