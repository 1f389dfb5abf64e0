import { describe, expect, it } from 'vitest';
import { authContext } from '../../../../test/support/auth-context.ts';
import { s256Challenge } from '../../pkce.ts';
import { finishLogin, LOGIN_STATE_TTL_SECONDS, LoginStateError, startLogin } from './state.ts';

describe('the state of a sign-in through an external provider', () => {
  it('comes back once with its nonce, verifier and return path', async () => {
    const { context } = await authContext();
    const started = await startLogin(context, { provider: 'peer', pkce: true, returnTo: '/jobs' });
    expect(started.codeChallenge).toBe(s256Challenge(started.state.codeVerifier!));
    const finished = await finishLogin(context, started.cookie, 'peer', started.state.state);
    expect(finished).toEqual(started.state);
    await expect(finishLogin(context, started.cookie, 'peer', started.state.state)).rejects.toThrow(/used already/);
  });

  it('has no verifier without PKCE', async () => {
    const { context } = await authContext();
    const started = await startLogin(context, { provider: 'peer', pkce: false, returnTo: '/' });
    expect(started.codeChallenge).toBeUndefined();
    expect((await finishLogin(context, started.cookie, 'peer', started.state.state)).codeVerifier).toBeUndefined();
  });

  it.each([
    ['another state', (s: string) => ({ cookie: s, provider: 'peer', state: 'x'.repeat(43) }), /differs/],
    ['another provider', (s: string) => ({ cookie: s, provider: 'other', state: undefined }), /provider peer/],
    ['no cookie', () => ({ cookie: undefined, provider: 'peer', state: undefined }), /no state cookie/],
    ['a forged cookie', (s: string) => ({ cookie: `${s}x`, provider: 'peer', state: undefined }), /refused/],
  ])('is refused with %s', async (_name, change, message) => {
    const { context } = await authContext();
    const started = await startLogin(context, { provider: 'peer', pkce: false, returnTo: '/' });
    const { cookie, provider, state } = change(started.cookie);
    await expect(finishLogin(context, cookie, provider, state ?? started.state.state)).rejects.toThrow(message);
  });

  it('expires', async () => {
    const auth = await authContext();
    const started = await startLogin(auth.context, { provider: 'peer', pkce: false, returnTo: '/' });
    auth.advance((LOGIN_STATE_TTL_SECONDS + 60) * 1000);
    await expect(finishLogin(auth.context, started.cookie, 'peer', started.state.state)).rejects.toBeInstanceOf(
      LoginStateError,
    );
  });
});
