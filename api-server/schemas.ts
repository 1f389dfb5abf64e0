import { z } from 'zod';

/**
 * Schemas every route area uses: errors, links, the path id and the `f` query. A record's schema sits beside the
 * record (`records/`), an area's own schemas beside its routes (`routes/<area>/schemas.ts`). The OpenAPI
 * description's components come from the schemas' ids: one definition per record.
 */

export const linkSchema = z
  .object({ href: z.string(), rel: z.string(), title: z.string() })
  .meta({ id: 'Link', description: 'A navigation link.' });

export const validationErrorSchema = z
  .object({
    loc: z.array(z.union([z.string(), z.number()])).describe('Where: "path", "query" or "body", then the field path.'),
    msg: z.string().describe('What is wrong.'),
    type: z.string().describe('Machine-readable kind of failure, e.g. too_small, invalid_type.'),
  })
  .meta({ id: 'ValidationError' });

export const httpValidationErrorSchema = z
  .object({ detail: z.array(validationErrorSchema) })
  .meta({ id: 'HTTPValidationError', description: 'A request failed validation.' });

export const errorDetailSchema = z
  .object({ detail: z.string() })
  .meta({ id: 'ErrorDetail', description: 'Error body of the native API.' });

/** `f` chooses the representation of an HTML-capable endpoint outright. */
export const formatQuerySchema = z.object({
  f: z.enum(['html', 'json']).optional().describe('Representation: html or json; overrides Accept.'),
});

const RESOURCE_ID = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';

/** A managed object's id in a path: a DNS-1123 subdomain, which also rules out any traversal. */
export const resourceIdSchema = z
  .string()
  .max(253)
  .regex(new RegExp(`^${RESOURCE_ID}$`), {
    message: 'must be lower-case letters, digits, "-" and ".", starting and ending with a letter or digit',
  });

/**
 * A dataset as a reader names it in a path: its id, served version, or `<id>@<version>`, a retained version by its
 * id or its Icechunk snapshot id (docs/datasets.md#addressing-a-version). A version name is only ever looked up
 * among the Dataset's versions, never used as a path.
 */
export const datasetRefSchema = z
  .string()
  .max(400)
  .regex(new RegExp(`^${RESOURCE_ID}(@[0-9A-Za-z][-0-9A-Za-z._]*)?$`), {
    message: 'must be a dataset id, or <dataset id>@<version id or Icechunk snapshot id>',
  })
  .describe('Dataset id; `<id>@<version>` reads a retained version (by version id or Icechunk snapshot id).');

const errorReport = z.object({
  message: z.string(),
  errorCode: z.string().describe('The catalogue code (docs/errors.md).'),
  errorProperty: z.string().optional().describe('The member of the object that failed.'),
});

/** The DHIS2 WebMessage envelope of the catalogue's `web-message` codes (DHIS2-style metadata APIs). */
export const webMessageErrorSchema = z
  .object({
    httpStatus: z.string(),
    httpStatusCode: z.number().int(),
    status: z.literal('ERROR'),
    message: z.string(),
    response: z.object({ errorReports: z.array(errorReport) }),
  })
  .meta({ id: 'WebMessageError', description: 'Error body in the DHIS2 WebMessage envelope.' });

/** What a DHIS2-style metadata API answers to a successful write of one object. */
export const objectReportMessageSchema = z
  .object({
    httpStatus: z.enum(['OK', 'Created']),
    httpStatusCode: z.union([z.literal(200), z.literal(201)]),
    status: z.literal('OK'),
    response: z.object({
      responseType: z.literal('ObjectReport'),
      uid: z.string().describe('The uid of the object written.'),
      klass: z.string().describe("DHIS2's class name of the object."),
      errorReports: z.array(errorReport).describe('Always empty: a write with a problem is refused whole.'),
    }),
  })
  .meta({ id: 'ObjectReportMessage', description: 'The DHIS2 WebMessage of a successful metadata write.' });

/** Error responses every route may give. */
export const commonErrorResponses = {
  422: httpValidationErrorSchema,
  500: errorDetailSchema,
};

/** A JSON Web Key Set (RFC 7517): the authorization server's keys, and the keys of the login's client assertions. */
export const jwksSchema = z
  .object({ keys: z.array(z.record(z.string(), z.unknown())) })
  .meta({ id: 'JWKS', description: 'Public keys verifying the tokens (RFC 7517).' });
