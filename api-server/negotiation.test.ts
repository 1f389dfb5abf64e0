import { describe, expect, it } from 'vitest';
import { negotiate, preferredMediaType } from './negotiation.ts';

describe('content negotiation', () => {
  it.each([
    [undefined, undefined, 'json'],
    ['*/*', undefined, 'json'],
    ['application/json', undefined, 'json'],
    ['text/html', undefined, 'html'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', undefined, 'html'],
    ['application/json, text/html', undefined, 'json'],
    ['text/html, application/json', undefined, 'html'],
    ['text/html;q=0.5, application/json;q=0.9', undefined, 'json'],
    ['application/json;q=0.4, text/*', undefined, 'html'],
    ['text/html;q=0', undefined, 'json'],
    ['image/png', undefined, 'json'],
    ['text/html', 'json', 'json'],
    ['application/json', 'html', 'html'],
  ] as const)('Accept %j with f=%j answers %s', (accept, f, expected) => {
    expect(negotiate(accept, f)).toBe(expected);
  });
});

describe('preferredMediaType', () => {
  const offered = ['application/json', 'text/csv', 'application/vnd.apache.parquet'] as const;

  it('takes the offered type Accept ranks highest, the first offered without Accept or when none is accepted', () => {
    expect(preferredMediaType(undefined, offered)).toBe('application/json');
    expect(preferredMediaType('text/csv', offered)).toBe('text/csv');
    expect(preferredMediaType('application/json;q=0.5, application/vnd.apache.parquet', offered)).toBe(
      'application/vnd.apache.parquet',
    );
    expect(preferredMediaType('text/*, application/json', offered)).toBe('text/csv');
    expect(preferredMediaType('image/png', offered)).toBe('application/json');
  });
});
