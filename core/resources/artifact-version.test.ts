import { describe, expect, it } from 'vitest';
import { artifactVersionSchema } from './common.ts';

const valid = (version: unknown) => artifactVersionSchema.safeParse(version).success;

describe('ArtifactVersion (release identity)', () => {
  it.each([
    ['a plain release', { authority: 'worldpop', value: 'R2025A' }],
    [
      'a value kept verbatim, inner spaces and punctuation included',
      { authority: 'gadm.org', value: '4.1 (2022-07-16)' },
    ],
    ['a value of 1 character', { authority: 'chc', value: '3' }],
    ['a value of 64 characters', { authority: 'chc', value: 'v'.repeat(64) }],
    ['an authority with dots, dashes and underscores between parts', { authority: 'hdx.ocha-fts_v2', value: '1' }],
    ['an authority of 64 characters', { authority: 'a'.repeat(64), value: '1' }],
  ])('accepts %s', (_name, version) => {
    expect(artifactVersionSchema.parse(version)).toEqual(version);
  });

  it.each([
    ['an empty value', { authority: 'chc', value: '' }],
    ['a value of 65 characters', { authority: 'chc', value: 'v'.repeat(65) }],
    ['a value with leading whitespace (rejected, never trimmed)', { authority: 'chc', value: ' 3.0' }],
    ['a value with trailing whitespace', { authority: 'chc', value: '3.0\n' }],
    ['an authority of 65 characters', { authority: 'a'.repeat(65), value: '1' }],
    ['an authority with upper case (a display label)', { authority: 'WorldPop', value: '1' }],
    ['an authority with a space', { authority: 'world pop', value: '1' }],
    ['an authority ending with a separator', { authority: 'gadm.', value: '1' }],
    ['an authority with doubled separators', { authority: 'gadm..org', value: '1' }],
    ['an empty authority', { authority: '', value: '1' }],
    ['a missing authority', { value: '1' }],
  ])('rejects %s', (_name, version) => {
    expect(valid(version)).toBe(false);
  });

  it('compares exactly: values differing only in case or spacing are different releases', () => {
    const a = artifactVersionSchema.parse({ authority: 'chc', value: 'v3.0' });
    const b = artifactVersionSchema.parse({ authority: 'chc', value: 'V3.0' });
    expect(a).not.toEqual(b);
  });
});
