import { describe, expect, it } from 'vitest';
import { addressKey, FORGET_AFTER_MS, SIGN_IN_THROTTLE, SignInThrottle } from './sign-in-throttle.ts';

/** A throttle on a clock the test moves. */
function throttle() {
  const clock = { now: 1_000_000 };
  const subject = new SignInThrottle(() => clock.now);
  /** One attempt that fails (or succeeds) at once; the wait asked for when it is not admitted. */
  const attempt = (username: string, address: string, succeeds = false): number | undefined => {
    const admission = subject.admit(username, address);
    if (admission.retryAfterMs !== undefined) return admission.retryAfterMs;
    admission.attempt.finish(succeeds);
    return undefined;
  };
  return { clock, subject, attempt };
}

describe('sign-in throttle', () => {
  it('admits five failures of one account from one address, then delays by 1 s, doubling to the cap', () => {
    const { clock, attempt } = throttle();
    for (let i = 0; i < 5; i++) expect(attempt('admin', 'a')).toBeUndefined();
    expect(attempt('admin', 'a')).toBe(1_000);
    clock.now += 999;
    expect(attempt('admin', 'a')).toBe(1);
    clock.now += 1;
    expect(attempt('admin', 'a')).toBeUndefined();
    expect(attempt('admin', 'a')).toBe(2_000);
    for (let i = 0; i < 20; i++) {
      clock.now += SIGN_IN_THROTTLE.pair.capMs;
      expect(attempt('admin', 'a')).toBeUndefined();
    }
    expect(attempt('admin', 'a')).toBe(SIGN_IN_THROTTLE.pair.capMs);
  });

  it('counts unknown usernames like known ones, so the throttle tells nobody which exist', () => {
    const { attempt } = throttle();
    for (let i = 0; i < 5; i++) attempt('nobody', 'a');
    expect(attempt('nobody', 'a')).toBe(1_000);
  });

  it('resets an account’s count from an address when a sign-in from there succeeds', () => {
    const { attempt } = throttle();
    for (let i = 0; i < 4; i++) attempt('admin', 'a');
    expect(attempt('admin', 'a', true)).toBeUndefined();
    for (let i = 0; i < 5; i++) expect(attempt('admin', 'a')).toBeUndefined();
    expect(attempt('admin', 'a')).toBe(1_000);
  });

  it('never delays the first attempt from another address, and delays its later ones no longer than the account cap', () => {
    const { clock, attempt } = throttle();
    // An attacker at address a guesses for hours, each time the throttle lets it.
    for (let i = 0; i < 200; i++) {
      clock.now += SIGN_IN_THROTTLE.pair.capMs;
      expect(attempt('admin', 'a')).toBeUndefined();
    }
    expect(attempt('admin', 'b', true)).toBeUndefined();
    // The owner mistypes at b: the account's rule now holds b too, up to its cap and timed from b's own failure.
    expect(attempt('admin', 'b')).toBeUndefined();
    expect(attempt('admin', 'b')).toBe(SIGN_IN_THROTTLE.account.capMs);
    clock.now += SIGN_IN_THROTTLE.account.capMs - 1;
    attempt('admin', 'a');
    clock.now += 1;
    expect(attempt('admin', 'b', true)).toBeUndefined();
  });

  it('delays an address that fails on many accounts (password spraying), and no other address', () => {
    const { attempt } = throttle();
    for (let i = 0; i < SIGN_IN_THROTTLE.address.threshold; i++) expect(attempt(`user${i}`, 'a')).toBeUndefined();
    expect(attempt('someone-else', 'a')).toBe(1_000);
    expect(attempt('someone-else', 'b')).toBeUndefined();
  });

  it('counts attempts still being checked, so a burst of concurrent guesses cannot outrun the rules', () => {
    const { subject } = throttle();
    const admitted = Array.from({ length: 5 }, () => subject.admit('admin', 'a'));
    expect(admitted.every((a) => a.retryAfterMs === undefined)).toBe(true);
    expect(subject.admit('admin', 'a').retryAfterMs).toBe(1_000);
  });

  it('forgets the failures of a counter an hour after its last one', () => {
    const { clock, attempt } = throttle();
    for (let i = 0; i < 5; i++) attempt('admin', 'a');
    clock.now += FORGET_AFTER_MS;
    for (let i = 0; i < 5; i++) expect(attempt('admin', 'a')).toBeUndefined();
    expect(attempt('admin', 'a')).toBe(1_000);
  });

  it('counts the addresses of one IPv6 /64 as one client', () => {
    const { attempt } = throttle();
    for (let i = 0; i < 5; i++) expect(attempt('admin', `2001:db8:1:2::${i + 1}`)).toBeUndefined();
    expect(attempt('admin', '2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(1_000);
    expect(attempt('admin', '2001:db8:1:3::1')).toBeUndefined();
  });

  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:0db8:0001:0002:0003:0004:0005:0006', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::198.51.100.7', '64:ff9b:0:0::/64'],
    ['', ''],
  ])('counts the address %j as the client %j', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});
