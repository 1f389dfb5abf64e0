/**
 * Validation of STAC documents against the published Processing and File extension schemas, offline: the unchanged
 * upstream files in test/fixtures/stac-extensions. Answers the errors, none when the document is valid.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Ajv } from 'ajv';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/stac-extensions');

export async function provenanceExtensionsValidator(): Promise<(document: unknown) => string[]> {
  const ajv = new Ajv({ strict: false, allErrors: true });
  // The one format the schemas use: an RFC 3339 date-time, as processing:datetime is.
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  const schemas = await Promise.all(
    ['processing-v1.2.0.json', 'file-v2.1.0.json'].map(
      async (file) => JSON.parse(await readFile(join(FIXTURES, file), 'utf8')) as object,
    ),
  );
  const validators = schemas.map((schema) => ajv.compile(schema));
  return (document) => validators.flatMap((validate) => (validate(document) ? [] : [ajv.errorsText(validate.errors)]));
}
