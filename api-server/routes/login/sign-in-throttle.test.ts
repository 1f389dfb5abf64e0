import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SIGN_IN_THROTTLE } from '../../../core/auth/users/sign-in-throttle.ts';
import { Browser, formFields, startAuthApp } from '../../../test/support/auth-app.ts';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const FAILURES_ADMITTED = SIGN_IN_THROTTLE.pair.threshold;

/** The instance behind a trusted proxy, whose `X-Forwarded-For` gives each request its client address. */
async function setup(proxyTrusted = true) {
  const app = await startAuthApp({ config: `server.proxy.trusted = ${proxyTrusted ? 'on' : 'off'}` });
  await app.addUser('admin', 'right', { authorities: ['ALL'] });
  const get = (path: string, password: string, address: string) =>
    fetch(`${app.url}${path}`, {
      headers: { authorization: basic('admin', password), 'x-forwarded-for': `203.0.113.9, ${address}` },
    });
  return { app, get };
}

/** Waits the `Retry-After` of a refusal, which the throttle rounds up to whole seconds. */
const waitRetryAfter = (response: Response) => sleep(Number(response.headers.get('retry-after')) * 1000);

describe('throttling of failed sign-ins', () => {
  it('answers HTTP basic with 429 and Retry-After after five failures, and takes the right password once the delay passed', async () => {
    const { get } = await setup();
    for (let i = 0; i < FAILURES_ADMITTED; i++)
      expect((await get('/datasets', 'wrong', '198.51.100.1')).status).toBe(401);
    const throttled = await get('/datasets', 'right', '198.51.100.1');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('1');
    expect(Object.keys((await throttled.json()) as object)).toEqual(['detail']);
    // Another address is not held by the first one's failures.
    expect((await get('/me', 'right', '198.51.100.2')).status).toBe(200);
    await waitRetryAfter(throttled);
    expect((await get('/datasets', 'right', '198.51.100.1')).status).toBe(200);
    // The success reset the count of this account from this address.
    expect((await get('/datasets', 'wrong', '198.51.100.1')).status).toBe(401);
  });

  it('answers the throttle in openEO’s envelope on an openEO route', async () => {
    const { get } = await setup();
    for (let i = 0; i < FAILURES_ADMITTED; i++) await get('/me', 'wrong', '198.51.100.1');
    const throttled = await get('/me', 'wrong', '198.51.100.1');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('1');
    expect(await throttled.json()).toMatchObject({ id: 'SignInThrottled', code: 'SignInThrottled', links: [] });
  });

  it('does not believe X-Forwarded-For from a proxy that is not trusted', async () => {
    const { get } = await setup(false);
    for (let i = 0; i < FAILURES_ADMITTED; i++) await get('/datasets', 'wrong', `198.51.100.${i + 1}`);
    expect((await get('/datasets', 'right', '198.51.100.99')).status).toBe(429);
  });

  it('shows the login page with 429 and Retry-After after five failures, and signs in once the delay passed', async () => {
    const { app } = await setup();
    const browser = new Browser(app.url);
    const fields = formFields((await browser.get('/login')).body);
    const post = (password: string, address: string) =>
      browser.request('POST', '/login', {
        form: { ...fields, username: 'admin', password },
        headers: { 'x-forwarded-for': address },
      });
    for (let i = 0; i < FAILURES_ADMITTED; i++) expect((await post('wrong', '198.51.100.1')).status).toBe(200);
    const throttled = await post('right', '198.51.100.1');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('1');
    expect(throttled.headers.get('content-type')).toMatch(/^text\/html/);
    expect(throttled.body).toContain('Too many failed sign-ins');
    expect(browser.cookies.has('stratus_session')).toBe(false);
    await sleep(Number(throttled.headers.get('retry-after')) * 1000);
    expect((await post('right', '198.51.100.1')).status).toBe(303);
    expect(browser.cookies.has('stratus_session')).toBe(true);
  });
});
