/**
 * Where the login page sends the browser afterwards: a path on this instance only. Anything that a browser could
 * read as another origin (a scheme, `//host`, `/\host`, control characters) falls back to the landing page, so the
 * login page is no open redirector.
 */
const MAX_LENGTH = 4096;

export function localReturnPath(value: string | undefined, fallback: string): string {
  if (!value || value.length > MAX_LENGTH) return fallback;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return fallback;
  return value;
}
