import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../cluster/objects.ts';
import { planCollection } from '../../cluster/expiry.ts';
import { COLLECTED_KINDS, COLLECTION_GRACE_MS } from './expiry.ts';

const now = new Date('2026-01-15T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const kind = (name: string) => COLLECTED_KINDS.find((k) => k.ref.kind === name)!;
const token = (expiresAt: string, invalidated = false) => ({
  hash: 'h'.repeat(43),
  issuedAt: ago(3_600_000),
  expiresAt,
  invalidated,
});
const object = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'climate.stratus.dev/v1alpha1',
  kind: 'X',
  metadata: { name, namespace: 'default', resourceVersion: '7' },
  spec,
});

describe('the authorization store collector plan', () => {
  it.each([
    [
      'a session past its end and the grace period is removed',
      'Session',
      { expiresAt: ago(COLLECTION_GRACE_MS + 1) },
      true,
    ],
    [
      'a session ended within the grace period is kept',
      'Session',
      { expiresAt: ago(COLLECTION_GRACE_MS - 1_000) },
      false,
    ],
    ['a live session is kept', 'Session', { expiresAt: ago(-60_000) }, false],
    [
      'a used client assertion past its expiry is removed',
      'OAuth2ClientAssertion',
      { expiresAt: ago(COLLECTION_GRACE_MS * 2) },
      true,
    ],
    [
      'an expired IAT is removed, consumed or not',
      'InitialAccessToken',
      { expiresAt: ago(COLLECTION_GRACE_MS * 2), consumed: false },
      true,
    ],
    [
      'an authorization whose refresh token still lives is kept, though its code and access token expired',
      'OAuth2Authorization',
      {
        authorizationCode: token(ago(3_000_000), true),
        accessToken: token(ago(3_000_000)),
        refreshToken: token(ago(-60_000)),
      },
      false,
    ],
    [
      'an authorization whose every token expired is removed',
      'OAuth2Authorization',
      { authorizationCode: token(ago(3_000_000), true), accessToken: token(ago(COLLECTION_GRACE_MS + 1)) },
      true,
    ],
    [
      'a revoked authorization is kept until its tokens expire, so their replay is still recognised',
      'OAuth2Authorization',
      { refreshToken: token(ago(-60_000), true), revocation: { time: ago(1_000), reason: 'code-replayed' } },
      false,
    ],
    ['an authorization without tokens is kept (nothing says when it ends)', 'OAuth2Authorization', {}, false],
  ])('%s', (_name, kindName, spec, removed) => {
    const plan = planCollection(kind(kindName), [object('r', spec)], now);
    expect(plan.length > 0).toBe(removed);
    if (removed)
      expect(plan[0]).toMatchObject({
        name: 'r',
        namespace: 'default',
        resourceVersion: '7',
        reason: expect.stringMatching(/^expired at /),
      });
  });

  it('collects the objects of every kind that expires, and not consents', () => {
    expect(COLLECTED_KINDS.map((k) => k.ref.kind).sort()).toEqual([
      'InitialAccessToken',
      'OAuth2Authorization',
      'OAuth2ClientAssertion',
      'Session',
    ]);
  });
});
