/**
 * Where the login page sends the browser afterwards: a path on this instance only. Anything that a browser could
 * read as another origin (a scheme, `//host`, `/\host`, control characters) falls back to the landing page, so the
 * login page is no open redirector. The path goes out in a `Location` header, which carries bytes, not text: every
 * character outside printable ASCII is percent-encoded as UTF-8 (what a browser does with a typed URL), since Node
 * refuses a header with a character above U+00FF and would send U+0080 to U+00FF as Latin-1.
 */
const MAX_LENGTH = 4096;

export function localReturnPath(value: string | undefined, fallback: string): string {
  if (!value || value.length > MAX_LENGTH) return fallback;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return fallback;
  // A lone surrogate has no UTF-8 form to encode.
  if (!value.isWellFormed()) return fallback;
  return value.replace(/[^\u0021-\u007e]+/g, encodeURIComponent);
}
