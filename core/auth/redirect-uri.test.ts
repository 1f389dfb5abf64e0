import { describe, expect, it } from 'vitest';
import {
  allowlistEntryProblem,
  isRegisteredRedirectUri,
  matchesAllowlist,
  redirectUriRefusal,
  redirectWith,
} from './redirect-uri.ts';

const registered = ['https://app.example.org/cb', 'http://127.0.0.1:8765/callback', 'stratus://oauth'];

describe('redirect URIs', () => {
  it.each([
    ['the registered URI', 'https://app.example.org/cb', true],
    ['a trailing slash more', 'https://app.example.org/cb/', false],
    ['one character changed', 'https://app.example.org/cc', false],
    ['another case in the host', 'https://App.example.org/cb', false],
    ['a query added', 'https://app.example.org/cb?x=1', false],
    ['another loopback port', 'http://127.0.0.1:8766/callback', false],
    ['the custom scheme as registered', 'stratus://oauth', true],
    ['a prefix of a registered URI', 'https://app.example.org/c', false],
  ])('matches %s: %s', (_name, uri, expected) => {
    expect(isRegisteredRedirectUri(uri, registered)).toBe(expected);
  });

  it.each([
    ['https', 'https://app.example.org/cb', undefined],
    ['http on loopback', 'http://127.0.0.1:8765/callback', undefined],
    ['a custom scheme on the allow-list', 'stratus://oauth', undefined],
    ['a custom scheme off the allow-list', 'evil://oauth', 'custom-scheme-not-allowed'],
    ['an allowed scheme with another path', 'stratus://oauth2', 'custom-scheme-not-allowed'],
    ['javascript:', 'javascript:alert(1)', 'custom-scheme-not-allowed'],
    ['a relative URI', '/callback', 'not-absolute'],
    ['a scheme-relative URI', '//evil.example/cb', 'not-absolute'],
    ['a fragment', 'https://app.example.org/cb#x', 'fragment'],
  ])('refuses to register %s: %s', (_name, uri, refusal) => {
    expect(redirectUriRefusal(uri, ['stratus://oauth'])).toBe(refusal);
  });

  it.each([
    ['a deep link matching a glob', 'stratus://oauth/phone-1', undefined],
    ['https off the allow-list', 'https://app.example.org/cb', 'not-on-allowlist'],
    ['a custom scheme off the allow-list', 'evil://oauth/phone-1', 'not-on-allowlist'],
    ['a fragment', 'stratus://oauth/phone#x', 'fragment'],
  ])('holds a dynamically registered client to the allow-list globs, %s: %s', (_name, uri, refusal) => {
    expect(redirectUriRefusal(uri, ['stratus://oauth/*'], 'dynamic')).toBe(refusal);
  });

  it('matches enrolment deep links against the allow-list globs', () => {
    expect(matchesAllowlist('stratus://oauth', ['stratus://oauth'])).toBe(true);
    expect(matchesAllowlist('stratus://oauth/device-1', ['stratus://oauth/*'])).toBe(true);
    expect(matchesAllowlist('stratus://oauthx', ['stratus://oauth'])).toBe(false);
    expect(matchesAllowlist('stratusXoauth', ['stratus.oauth'])).toBe(false);
  });

  it.each([
    ['a custom scheme', 'myapp://oauth', undefined],
    ['a custom scheme with a glob path', 'myapp://oauth/*', undefined],
    ['a reverse-domain scheme', 'org.example.app:/callback', undefined],
    ['https with a glob path', 'https://app.example.org/enrol/*', undefined],
    ['a glob scheme', '*://oauth', 'must start with a scheme without *, such as myapp:'],
    ['a scheme with a glob inside', 'my*app://oauth', 'must start with a scheme without *, such as myapp:'],
    ['no scheme', 'oauth/callback', 'must start with a scheme without *, such as myapp:'],
    ['javascript:', 'javascript:*', 'must not use the javascript: scheme'],
    ['data:', 'data:text/html,*', 'must not use the data: scheme'],
    ['a fragment', 'myapp://oauth#x', 'must not have a fragment'],
    ['whitespace', 'myapp://o auth', 'must not contain whitespace or control characters'],
    ['a control character', 'myapp://oauth\u0000', 'must not contain whitespace or control characters'],
    ['https with a glob host', 'https://*.example.org/cb', 'must name its host, without * (http and https)'],
    ['https with only a glob', 'https://*', 'must name its host, without * (http and https)'],
    ['http without a host', 'http:///cb', 'must name its host, without * (http and https)'],
    ['not a URI', 'myapp://[x', 'is not a URI (with each * read as a character)'],
  ])('judges the allow-list entry %s: %s', (_name, glob, problem) => {
    expect(allowlistEntryProblem(glob)).toBe(problem);
  });

  it('appends response parameters and keeps the registered query', () => {
    expect(redirectWith('https://app.example.org/cb?tenant=a', { code: 'c d', state: undefined, iss: 'x' })).toBe(
      'https://app.example.org/cb?tenant=a&code=c+d&iss=x',
    );
    expect(redirectWith('stratus://oauth', { code: 'abc' })).toBe('stratus://oauth?code=abc');
  });
});
