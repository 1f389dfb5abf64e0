/**
 * The official openEO test vectors (`../shared/openeo-processes/tests/*.json5`), read with the `json5` package,
 * with every `{"$ref": "assets/..."}` replaced by the asset it names (JSON5 parsed, other files as text).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import JSON5 from 'json5';
import { sharedDir } from '../support/shared-dir.ts';

export interface Vector {
  /** Position in the file's `tests` array. */
  index: number;
  arguments: Record<string, unknown>;
  returns?: unknown;
  throws?: string | true;
  required?: string[];
  delta?: number;
  level?: string | null;
}

export interface VectorFile {
  id: string;
  level: string;
  experimental?: boolean;
  tests: Vector[];
}

export const VECTORS_DIR = join(sharedDir(), 'openeo-processes', 'tests');

function resolveRefs(value: unknown, base: string): unknown {
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, base));
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if (typeof record.$ref === 'string' && Object.keys(record).length === 1) {
    const path = join(base, record.$ref);
    // A reference to a missing asset stays as it is: the vector then fails, unless defects.ts corrects it.
    if (!existsSync(path)) return record;
    const text = readFileSync(path, 'utf8');
    return /\.json5?$/.test(path) ? resolveRefs(JSON5.parse(text), dirname(path)) : text;
  }
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, resolveRefs(v, base)]));
}

/** The vectors of process `id` (fresh objects on every call), or undefined when the process has no file. */
export function loadVectors(id: string): VectorFile | undefined {
  const path = join(VECTORS_DIR, `${id}.json5`);
  if (!existsSync(path)) return undefined;
  const raw = JSON5.parse(readFileSync(path, 'utf8')) as Omit<VectorFile, 'tests'> & { tests: Omit<Vector, 'index'>[] };
  return {
    ...raw,
    tests: raw.tests.map((t, index) => ({ ...(resolveRefs(t, VECTORS_DIR) as Omit<Vector, 'index'>), index })),
  };
}

/** Ids of every process with a vector file. */
export function vectorFileIds(): string[] {
  return readdirSync(VECTORS_DIR)
    .filter((f) => f.endsWith('.json5'))
    .map((f) => f.slice(0, -'.json5'.length))
    .sort();
}

/** An asset of the vectors (`assets/...`), resolved as a `$ref` to it would be. */
export function loadAsset(ref: string): unknown {
  return resolveRefs({ $ref: ref }, VECTORS_DIR);
}
