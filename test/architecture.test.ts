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

/** Source files (not tests) of `areas`, relative to the root, with the files each imports. */
async function importGraph(areas: string[]): Promise<Map<string, string[]>> {
  const files = (await Promise.all(areas.map(sourceFiles))).flat().map((f) => relative(root, f));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = relativeImports(await readFile(join(root, file), 'utf8')).map((s) =>
      relative(root, resolve(root, dirname(file), s)),
    );
    graph.set(
      file,
      targets.filter((t) => known.has(t)),
    );
  }
  return graph;
}

/** The strongly connected components of more than one file (or a file importing itself), each sorted (Tarjan). */
function importCycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The folder directly under `parent` that holds `file` (`core/stores` for `core/stores/zarr/read.ts`), if any. */
function folderUnder(parent: string, file: string): string | undefined {
  const rest = file.startsWith(`${parent}/`) ? file.slice(parent.length + 1).split('/') : [];
  return rest.length > 1 ? `${parent}/${rest[0]}` : undefined;
}

/**
 * The loops between the folders directly under `parent`, one per group of folders that reach each other, each
 * printed as a round trip from its first folder with the file import behind every arrow.
 */
function folderCycles(files: Map<string, string[]>, parent: string): string[] {
  const folders = new Map<string, string[]>();
  const witness = new Map<string, string>();
  for (const [file, targets] of files) {
    const from = folderUnder(parent, file);
    if (from === undefined) continue;
    if (!folders.has(from)) folders.set(from, []);
    for (const target of targets) {
      const to = folderUnder(parent, target);
      if (to === undefined || to === from || witness.has(`${from} ${to}`)) continue;
      witness.set(`${from} ${to}`, `${file} -> ${target}`);
      folders.get(from)!.push(to);
    }
  }
  return importCycles(folders).map((group) => {
    const members = new Set(group);
    // Breadth-first from the first folder back to itself, inside the group: the shortest round trip.
    const start = group[0]!;
    const cameFrom = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0 && !cameFrom.has(start)) {
      const folder = queue.shift()!;
      for (const next of folders.get(folder)!)
        if (members.has(next) && !cameFrom.has(next)) {
          cameFrom.set(next, folder);
          queue.push(next);
        }
    }
    const trip: string[] = [];
    let folder = start;
    do {
      const previous = cameFrom.get(folder)!;
      trip.unshift(witness.get(`${previous} ${folder}`)!);
      folder = previous;
    } while (folder !== start);
    return trip.join(' => ');
  });
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

  it('has no import cycle among the source files of core/, operator/, api-server/ and cmd/', async () => {
    expect(importCycles(await importGraph(['core', 'operator', 'api-server', 'cmd']))).toEqual([]);
  });

  it('has no loop between the folders of core/, nor between the folders of core/processing/', async () => {
    const files = await importGraph(['core']);
    expect([...folderCycles(files, 'core'), ...folderCycles(files, 'core/processing')]).toEqual([]);
  });

  it('finds loops between folders and prints each with the file imports behind it (the folder check works)', () => {
    const files = new Map([
      ['core/a/one.ts', ['core/b/two.ts', 'core/a/three.ts']],
      ['core/a/three.ts', []],
      ['core/b/two.ts', ['core/c/deep/four.ts', 'core/top.ts']],
      ['core/c/deep/four.ts', ['core/a/three.ts']],
      ['core/top.ts', ['core/a/one.ts']],
      ['core/d/five.ts', ['core/a/one.ts']],
    ]);
    expect(folderCycles(files, 'core')).toEqual([
      'core/a/one.ts -> core/b/two.ts => core/b/two.ts -> core/c/deep/four.ts => core/c/deep/four.ts -> core/a/three.ts',
    ]);
    expect(folderUnder('core/processing', 'core/processing/zonal/grid.ts')).toBe('core/processing/zonal');
    expect(folderUnder('core/processing', 'core/processing/engine.ts')).toBeUndefined();
  });

  it('finds import cycles (the cycle search itself works)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', ['d']],
      ['e', ['a']],
    ]);
    expect(importCycles(graph)).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('finds the imports it checks (the scan itself works)', () => {
    expect(relativeImports(`import { a } from '../operator/x.ts';\nimport type { B } from "./b.ts";`)).toEqual([
      '../operator/x.ts',
      './b.ts',
    ]);
  });
});

/**
 * Layers of the API server, lowest first: a module may import its own layer and those below it, never one above.
 * The shared modules (errors, schemas, negotiation, views) are the bottom; records are the API's views of the
 * resources; plugins are app-wide fastify glue; services are what several route areas use; route areas sit on top,
 * and `app.ts` (with `http-server.ts`, `server.ts` and the test helpers) wires everything.
 */
const apiLayers: [layer: string, matches: (path: string) => boolean][] = [
  ['shared', () => true],
  ['records', (path) => path.startsWith('api-server/records/')],
  ['plugins', (path) => path.startsWith('api-server/plugins/')],
  ['services', (path) => path.startsWith('api-server/services/')],
  ['routes', (path) => path.startsWith('api-server/routes/')],
  [
    'app',
    (path) =>
      ['api-server/app.ts', 'api-server/http-server.ts', 'api-server/server.ts'].includes(path) ||
      path.startsWith('api-server/test/'),
  ],
];

function apiLayerOf(path: string): number {
  return apiLayers.findLastIndex(([, matches]) => matches(path));
}

/** The route area of a path under `api-server/routes/`, or undefined elsewhere. */
function routeAreaOf(path: string): string | undefined {
  return /^api-server\/routes\/([^/]+)\//.exec(path)?.[1];
}

describe('API server layers', () => {
  it('a module imports only its own layer and those below it', async () => {
    const violations: string[] = [];
    for (const [from, targets] of await importGraph(['api-server']))
      for (const target of targets) {
        if (!target.startsWith('api-server/')) continue;
        const [fromLayer, toLayer] = [apiLayerOf(from), apiLayerOf(target)];
        if (toLayer > fromLayer)
          violations.push(`${from} (${apiLayers[fromLayer]![0]}) -> ${target} (${apiLayers[toLayer]![0]})`);
      }
    expect(violations).toEqual([]);
  });

  it('a route area imports no other route area', async () => {
    const violations: string[] = [];
    for (const [from, targets] of await importGraph(['api-server'])) {
      const area = routeAreaOf(from);
      if (area === undefined) continue;
      for (const target of targets) {
        const other = routeAreaOf(target);
        if (other !== undefined && other !== area) violations.push(`${from} -> ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('places modules in their layer and area (the checks themselves work)', () => {
    expect(apiLayerOf('api-server/errors.ts')).toBe(0);
    expect(apiLayerOf('api-server/views/html.ts')).toBe(0);
    expect(apiLayerOf('api-server/services/runs/runs.ts')).toBe(3);
    expect(apiLayerOf('api-server/routes/stac/index.ts')).toBe(4);
    expect(apiLayerOf('api-server/app.ts')).toBe(5);
    expect(routeAreaOf('api-server/routes/stac/index.ts')).toBe('stac');
    expect(routeAreaOf('api-server/services/runs/runs.ts')).toBeUndefined();
  });
});
