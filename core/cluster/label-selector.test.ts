import { describe, expect, it } from 'vitest';
import { matchesLabels, parseLabelSelector } from './label-selector.ts';

describe('label selectors', () => {
  it.each([
    ['a=b', [{ key: 'a', op: 'in', values: ['b'] }]],
    ['a == b', [{ key: 'a', op: 'in', values: ['b'] }]],
    ['a!=b', [{ key: 'a', op: 'notin', values: ['b'] }]],
    [
      'env in (prod, dev),tier',
      [
        { key: 'env', op: 'in', values: ['prod', 'dev'] },
        { key: 'tier', op: 'exists' },
      ],
    ],
    ['!x', [{ key: 'x', op: '!exists' }]],
    ['climate.stratus.dev/source=sample', [{ key: 'climate.stratus.dev/source', op: 'in', values: ['sample'] }]],
    ['', []],
  ])('parses %j', (selector, expected) => {
    expect(parseLabelSelector(selector)).toEqual(expected);
  });

  it.each(['a=b,', 'a in (b', '=b', 'a=b c', 'bad key=x', 'a=' + 'x'.repeat(64)])('rejects %j with 400', (selector) => {
    expect(() => parseLabelSelector(selector)).toThrow(expect.objectContaining({ reason: 'BadRequest', code: 400 }));
  });

  it('matches labels', () => {
    const selector = parseLabelSelector('env in (prod),!legacy,team!=ops');
    expect(matchesLabels(selector, { env: 'prod' })).toBe(true);
    expect(matchesLabels(selector, { env: 'prod', legacy: 'y' })).toBe(false);
    expect(matchesLabels(selector, { env: 'prod', team: 'ops' })).toBe(false);
    expect(matchesLabels(selector, undefined)).toBe(false);
  });
});
