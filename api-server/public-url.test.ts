import { describe, expect, it } from 'vitest';
import { publicBaseUrl } from './public-url.ts';

const request = (headers: Record<string, string> = {}) => ({ headers, protocol: 'http' as const, host: 'pod:8080' });

describe('publicBaseUrl', () => {
  it.each([
    [
      'the configured base URL, whatever the headers say',
      { 'x-forwarded-host': 'x' },
      'https://c.example',
      'https://c.example',
    ],
    ['the request itself without proxy headers', {}, null, 'http://pod:8080'],
    [
      "the client-side proxy's values when proxies append theirs",
      { 'x-forwarded-proto': 'https, http', 'x-forwarded-host': 'c.example, ingress', 'x-forwarded-prefix': '/api/' },
      null,
      'https://c.example/api',
    ],
    ['a prefix without its leading slash', { 'x-forwarded-prefix': 'api' }, null, 'http://pod:8080/api'],
    [
      'http for a protocol that is neither http nor https',
      { 'x-forwarded-proto': 'javascript' },
      null,
      'http://pod:8080',
    ],
  ])('uses %s', (_, headers, configured, expected) => {
    expect(publicBaseUrl(request(headers), configured)).toBe(expected);
  });
});
