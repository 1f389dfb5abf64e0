/** Text processes (openEO category `texts`). Case-insensitive matching compares lower-cased text. */
import type { Args, ProcessDefinition } from '../process.ts';

function fold(text: string, caseSensitive: unknown): string {
  return caseSensitive === false ? text.toLowerCase() : text;
}

function matcher(id: string, test: (data: string, pattern: string) => boolean): ProcessDefinition {
  return {
    id,
    run: ({ data, pattern, case_sensitive }: Args) =>
      data === null ? null : test(fold(data as string, case_sensitive), fold(pattern as string, case_sensitive)),
  };
}

/** The text form of an element of `text_concat`: numbers, booleans and null as JSON writes them. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}

export const textProcesses: ProcessDefinition[] = [
  matcher('text_begins', (d, p) => d.startsWith(p)),
  matcher('text_ends', (d, p) => d.endsWith(p)),
  matcher('text_contains', (d, p) => d.includes(p)),
  {
    id: 'text_find',
    run: ({ data, pattern, case_sensitive }: Args) => {
      if (data === null) return null;
      const at = fold(data as string, case_sensitive).indexOf(fold(pattern as string, case_sensitive));
      return at < 0 ? null : at;
    },
  },
  {
    id: 'text_concat',
    run: ({ data, separator }: Args) => (data as unknown[]).map(textOf).join(textOf(separator)),
  },
];
