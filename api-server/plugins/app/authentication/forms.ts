import type { FastifyInstance } from 'fastify';

/**
 * `application/x-www-form-urlencoded` bodies, which the OAuth2 endpoints and the sign-in forms take. A parameter
 * given twice becomes an array, so that the handlers can refuse it (RFC 6749 §3.1). Registered per area, so the
 * rest of the API keeps accepting JSON only.
 */
export type FormFields = Record<string, string | string[]>;
const FORM_BODY_LIMIT = 64 * 1024;

export function parseForm(body: string): FormFields {
  const fields: FormFields = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const previous = fields[key];
    fields[key] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return fields;
}

export function acceptForms(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, parseForm(body as string)),
  );
}

/** A single-valued field; a repeated or absent one is undefined. */
export function field(fields: unknown, name: string): string | undefined {
  const value = (fields as FormFields | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}
