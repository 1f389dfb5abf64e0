import type { StacLink } from './stac.ts';

/** STAC's pattern for `license`: an SPDX identifier or expression made of these characters. */
const SPDX_ID = /^[\w\-.+]+$/;

/** STAC's `license` of a resource: its SPDX id, or `other` with a `license` link to the text when one is known. */
export function licenseOf(spec: { license?: string; licenseUrl?: string }): { license: string; links: StacLink[] } {
  const declared = spec.license ?? 'other';
  const id = declared !== 'other' && SPDX_ID.test(declared) ? declared : 'other';
  const links: StacLink[] = spec.licenseUrl
    ? [{ href: spec.licenseUrl, rel: 'license', title: id === 'other' ? declared : id }]
    : [];
  return { license: id, links };
}
