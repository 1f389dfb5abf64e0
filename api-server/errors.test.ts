import { describe, expect, it } from 'vitest';
import { documentedCodes } from '../test/support/documented-codes.ts';
import { catalogueParts } from './errors.ts';

/** Where docs/errors.md lists the codes of each part of the catalogue. */
const sectionOf: Record<keyof typeof catalogueParts, string> = {
  native: 'API errors',
  'openEO routes': 'API errors',
  'processing engine': 'Processing errors (openEO)',
  OAuth2: 'API errors',
  WebMessage: 'API errors',
};

describe('the error catalogue', () => {
  it('defines each code in one part only', () => {
    const partsOf = new Map<string, string[]>();
    for (const [part, codes] of Object.entries(catalogueParts))
      for (const code of Object.keys(codes)) partsOf.set(code, [...(partsOf.get(code) ?? []), part]);
    const twice = [...partsOf].filter(([, parts]) => parts.length > 1);
    expect(twice).toEqual([]);
  });

  it('documents every code of every part in docs/errors.md, with its status', async () => {
    for (const [part, codes] of Object.entries(catalogueParts)) {
      const documented = await documentedCodes('errors.md', sectionOf[part as keyof typeof catalogueParts]);
      for (const [code, entry] of Object.entries(codes))
        expect(documented.get(code)?.status, `${part}: ${code}`).toBe(String(entry.status));
    }
  });
});
