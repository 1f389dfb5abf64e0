/** One `key = value` entry of a properties file, with where it came from for error messages. */
export interface PropertyEntry {
  key: string;
  value: string;
  line: number;
}

/**
 * Parses the properties format operators know from Java platforms: `key = value` or `key: value`, `#` and `!`
 * comments, a trailing `\` continues the value on the next line, and whitespace around keys and values is trimmed.
 */
export function parseProperties(text: string): PropertyEntry[] {
  const entries: PropertyEntry[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const startLine = i + 1;
    let line = lines[i]!.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    while (line.endsWith('\\') && i + 1 < lines.length) line = line.slice(0, -1) + lines[++i]!.trim();
    const separator = line.search(/[=:]/);
    const key = (separator < 0 ? line : line.slice(0, separator)).trim();
    const value = separator < 0 ? '' : line.slice(separator + 1).trim();
    entries.push({ key, value, line: startLine });
  }
  return entries;
}
