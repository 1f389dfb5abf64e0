import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

/** Top-level folders and the folders each may import from (DESIGN.md §2: core imports neither side). */
const allowed: Record<string, string[]> = {
  core: ['core'],
  operator: ['core', 'operator'],
  'api-server': ['core', 'api-server'],
};

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name));
}

function relativeImports(source: string): string[] {
  const specifiers = [...source.matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g)].map((m) => m[1]!);
  const dynamic = [...source.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((m) => m[1]!);
  return [...specifiers, ...dynamic];
}

describe('module boundaries', () => {
  for (const [area, mayImport] of Object.entries(allowed)) {
    it(`${area}/ imports only from ${mayImport.join(', ')}`, async () => {
      const violations: string[] = [];
      for (const file of await sourceFiles(area)) {
        for (const specifier of relativeImports(await readFile(file, 'utf8'))) {
          const target = relative(root, resolve(dirname(file), specifier)).split('/')[0]!;
          if (!mayImport.includes(target)) violations.push(`${relative(root, file)} -> ${specifier}`);
        }
      }
      expect(violations).toEqual([]);
    });
  }

  it('finds the imports it checks (the scan itself works)', () => {
    expect(relativeImports(`import { a } from '../operator/x.ts';\nimport type { B } from "./b.ts";`)).toEqual([
      '../operator/x.ts',
      './b.ts',
    ]);
  });
});
