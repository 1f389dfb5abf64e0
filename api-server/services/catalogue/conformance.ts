export const OPENEO_API_VERSION = '1.2.0';

/** What the root capabilities document and `/conformance` both declare. */
export const CONFORMS_TO = [
  'https://api.openeo.org/1.2.0',
  'https://api.stacspec.org/v1.0.0/core',
  'https://api.stacspec.org/v1.0.0/collections',
];
