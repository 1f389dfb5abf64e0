import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

const docs = resolve(import.meta.dirname, '../../docs');

/**
 * The rows of the first table under the heading `section` of a page in `docs/`, by their first cell with its
 * backticks dropped (the code the row documents), each row as its cells by column header. How the tests of a code
 * catalogue (the API's errors, the run errors) check that the docs list exactly the catalogue.
 */
export async function documentedCodes(page: string, section: string): Promise<Map<string, Record<string, string>>> {
  const lines = (await readFile(resolve(docs, page), 'utf8')).split('\n');
  const heading = lines.findIndex((line) => /^#+ /.test(line) && line.replace(/^#+ /, '') === section);
  if (heading < 0) throw new Error(`docs/${page} has no section "${section}"`);
  const start = lines.findIndex((line, i) => i > heading && (line.startsWith('|') || /^#+ /.test(line)));
  if (start < 0 || !lines[start]!.startsWith('|'))
    throw new Error(`the section "${section}" of docs/${page} has no table`);
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  const cellsOf = (line: string) =>
    line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim());
  const [header, , ...rows] = lines.slice(start, end < 0 ? undefined : end).map(cellsOf);
  const table = new Map<string, Record<string, string>>();
  for (const cells of rows) {
    const row = Object.fromEntries(header!.map((name, i) => [name, cells[i] ?? '']));
    table.set(cells[0]!.replace(/`/g, ''), row);
  }
  return table;
}
