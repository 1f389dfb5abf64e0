import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../../core/auth/password.ts';
import { secretKind } from '../../../core/resources/secret.ts';
import { NAMESPACE } from '../../../test/support/auth-context.ts';
import { Browser, formFields, startAuthApp } from '../../../test/support/auth-app.ts';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
/**
 * Pairs of samples; each pair measures both kinds back to back, in turns first, so that load on the machine hits
 * both alike. A sample is the CPU time the process spends on the request (scrypt's thread included), not its wall
 * time: on a shared machine the wall time of one request swings threefold with the load of other processes, while
 * the work done for it, which is what tells an unknown user from a known one, does not. What is compared is the
 * median of the pairs' ratios: a pair's two samples share the machine's state of that moment (caches, collector),
 * which medians taken of each kind apart do not.
 */
const PAIRS = 25;
/**
 * About 0.15 s a check (64 MiB): the few milliseconds the rest of a request and the collector spend, which vary from
 * one sample to the next, stay small against it, and a second scrypt would double a sample.
 */
const COST = { ln: 16, r: 8, p: 1 };
/** How far apart the two kinds may be: a second scrypt, or a second Secret read of the cost of one, would show. */
const MAX_RATIO = 1.1;

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * The instance behind a trusted proxy, each sample from its own address so the throttle never answers one, with
 * the user `ada` whose hash has COST, signed in once so the remembered checks hold her right password.
 */
async function setup() {
  const app = await startAuthApp({ config: 'server.proxy.trusted = on' });
  await app.addUser('ada', 'pw');
  const secret = (await app.cluster.get(secretKind, 'ada-password', NAMESPACE))!;
  await app.cluster.update(secretKind, {
    ...secret,
    data: { hash: Buffer.from(await hashPassword('pw', COST)).toString('base64') },
  });
  const signedIn = await fetch(`${app.url}/me`, { headers: { authorization: basic('ada', 'pw') } });
  expect(signedIn.status).toBe(200);
  return app;
}

/**
 * Alternating samples of a refusal for an unknown user and for a known user's wrong password (CPU ms): their medians,
 * and the median of each pair's ratio of the larger to the smaller kind, oriented so that 1 means equal.
 */
async function timesOf(refuse: (username: string, address: string) => Promise<void>) {
  const unknown: number[] = [];
  const known: number[] = [];
  const timeOf = async (username: string, address: string) => {
    const start = process.cpuUsage();
    await refuse(username, address);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  for (let i = 0; i <= PAIRS; i++) {
    const knownFirst = i % 2 === 0;
    const first = await timeOf(knownFirst ? 'ada' : 'nobody', `198.51.100.${i}`);
    const second = await timeOf(knownFirst ? 'nobody' : 'ada', `203.0.113.${i}`);
    const [knownTime, unknownTime] = knownFirst ? [first, second] : [second, first];
    // The first pair warms up both paths.
    if (i === 0) continue;
    known.push(knownTime);
    unknown.push(unknownTime);
  }
  const knownOverUnknown = median(known.map((k, i) => k / unknown[i]!));
  return {
    unknown: median(unknown),
    known: median(known),
    ratio: Math.max(knownOverUnknown, 1 / knownOverUnknown),
  };
}

describe('the time of a refused sign-in', () => {
  it('is the same for an unknown user as for a known user’s wrong password, over HTTP basic', async () => {
    const app = await setup();
    const times = await timesOf(async (username, address) => {
      const response = await fetch(`${app.url}/datasets`, {
        headers: { authorization: basic(username, 'wrong'), 'x-forwarded-for': address },
      });
      await response.arrayBuffer();
      expect(response.status).toBe(401);
    });
    expect(times.ratio, JSON.stringify(times)).toBeLessThan(MAX_RATIO);
  });

  it('is the same for an unknown user as for a known user’s wrong password, at the login form', async () => {
    const app = await setup();
    const browser = new Browser(app.url);
    const fields = formFields((await browser.get('/login')).body);
    const times = await timesOf(async (username, address) => {
      const response = await browser.request('POST', '/login', {
        form: { ...fields, username, password: 'wrong' },
        headers: { 'x-forwarded-for': address },
      });
      expect(response.body).toContain('The username or password is wrong.');
    });
    expect(times.ratio, JSON.stringify(times)).toBeLessThan(MAX_RATIO);
  });
});
