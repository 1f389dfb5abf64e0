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

/**
 * Layers of the API server, lowest first: a module may import its own layer and those below it, never one above.
 * The shared modules (errors, schemas, negotiation, views) are the bottom; records are the API's views of the
 * resources; plugins are app-wide fastify glue; services are what several route areas use; route areas sit on top,
 * and `app.ts` (with `server.ts` and the test helpers) wires everything.
 */
const apiLayers: [layer: string, matches: (path: string) => boolean][] = [
  ['shared', () => true],
  ['records', (path) => path.startsWith('api-server/records/')],
  ['plugins', (path) => path.startsWith('api-server/plugins/')],
  ['services', (path) => path.startsWith('api-server/services/')],
  ['routes', (path) => path.startsWith('api-server/routes/')],
  [
    'app',
    (path) => ['api-server/app.ts', 'api-server/server.ts'].includes(path) || path.startsWith('api-server/test/'),
  ],
];

function apiLayerOf(path: string): number {
  return apiLayers.findLastIndex(([, matches]) => matches(path));
}

/** The route area of a path under `api-server/routes/`, or undefined elsewhere. */
function routeAreaOf(path: string): string | undefined {
  return /^api-server\/routes\/([^/]+)\//.exec(path)?.[1];
}

/** Every relative import of every source file under `dirs`, as paths from the root. */
async function importGraph(dirs: string[]): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const dir of dirs)
    for (const file of await sourceFiles(dir)) {
      const from = relative(root, file);
      const targets = relativeImports(await readFile(file, 'utf8')).map((s) =>
        relative(root, resolve(dirname(file), s)),
      );
      graph.set(from, targets);
    }
  return graph;
}

/** The import loops of a graph: the modules of each, sorted (Tarjan's strongly connected components). */
function importCycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)!.includes(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
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

describe('import loops', () => {
  // core/ and operator/ join this list once their loops are gone (issue 20: core/stores/cube-sink.ts with
  // cube-append.ts and icechunk/version-writer.ts; operator/controllers/ingestion/plan.ts with sync-range.ts).
  for (const folder of ['api-server', 'cmd'])
    it(`${folder}/ has no import loops`, async () => {
      expect(importCycles(await importGraph([folder]))).toEqual([]);
    });

  it('finds a loop of three, a module importing itself, and no loop where there is none (the check itself works)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
      ['e', ['e']],
      ['f', ['d', 'outside']],
    ]);
    expect(importCycles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
  });
});
