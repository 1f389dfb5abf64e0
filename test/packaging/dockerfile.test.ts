/**
 * The image, checked without a Docker engine (none runs here): what the Dockerfile copies exists, the build
 * context leaves out local state, and the sources it copies import only what it copies, Node's built-ins and
 * production dependencies (the image installs `npm ci --omit=dev`), so no module is missing at run time.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, matchesGlob, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const dockerfile = await readFile(join(root, 'Dockerfile'), 'utf8');
const ignored = (await readFile(join(root, '.dockerignore'), 'utf8'))
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const { dependencies } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

/** Whether the build context leaves `path` out: a pattern excludes what it matches and what is under it. */
const excluded = (path: string) => ignored.some((p) => matchesGlob(path, p) || matchesGlob(path, `${p}/**`));

/** Sources of the COPY instructions that take from the build context (not from another stage). */
const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((m) =>
  m[1]!.trim().split(/\s+/).slice(0, -1),
);

/** Every file the image gets from the build context. */
async function imageFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const source of copied) {
    if ((await stat(join(root, source))).isFile()) files.push(source);
    else {
      const entries = await readdir(join(root, source), { recursive: true, withFileTypes: true });
      for (const e of entries.filter((e) => e.isFile())) files.push(relative(root, join(e.parentPath, e.name)));
    }
  }
  return files.filter((f) => !excluded(f));
}

const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('Dockerfile and .dockerignore', () => {
  it('copy only paths that exist', async () => {
    expect(copied.length).toBeGreaterThan(0);
    for (const source of copied) await expect(stat(join(root, source)), source).resolves.toBeDefined();
  });

  it('keep local state and installed tools out of the build context', () => {
    for (const path of ['node_modules/x', '.tools/node', '.data/cluster', '.git/HEAD']) {
      expect(excluded(path), path).toBe(true);
    }
    expect(excluded('core/resources/registry.ts')).toBe(false);
  });

  it('run as a numeric non-root user, so that runAsNonRoot can be checked', () => {
    expect(dockerfile).toMatch(/^USER [1-9][0-9]*:[0-9]+$/m);
    expect(dockerfile).toMatch(/^FROM node:24-trixie-slim AS deps$/m);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev/m);
  });

  it('hold the entry points: the stratus command and the worker of the Jobs', async () => {
    const files = await imageFiles();
    expect(files).toContain('cmd/stratus.ts');
    expect(files).toContain('operator/worker/main.ts');
    expect(files).toContain('config/stratus.properties');
    expect(files.filter((f) => f.endsWith('.test.ts'))).toEqual([]);
  });

  it('give every copied source its imports: copied files, node: built-ins or production dependencies', async () => {
    const files = await imageFiles();
    const inImage = new Set(files);
    const missing: string[] = [];
    let checked = 0;
    for (const file of files.filter((f) => f.endsWith('.ts'))) {
      const text = await readFile(join(root, file), 'utf8');
      const imports =
        /(?:^|\s)(?:import|export)\b[^'"]*?\bfrom\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|^import\s+'([^']+)'/gm;
      for (const match of text.matchAll(imports)) {
        const specifier = match[1] ?? match[2] ?? match[3];
        checked++;
        if (specifier === undefined || specifier.startsWith('node:')) continue;
        if (specifier.startsWith('.')) {
          const target = relative(root, resolve(dirname(join(root, file)), specifier));
          if (!inImage.has(target)) missing.push(`${file}: ${specifier}`);
        } else if (!(packageOf(specifier) in dependencies)) missing.push(`${file}: ${specifier} (not a dependency)`);
      }
    }
    expect(checked).toBeGreaterThan(500);
    expect(missing).toEqual([]);
  });
});
