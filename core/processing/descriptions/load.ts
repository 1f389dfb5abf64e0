/**
 * Process descriptions served as data: the official openEO ones vendored byte for byte under `openeo/` (stable
 * processes) and `openeo/proposals/` (experimental ones), and Stratus's own under `stratus/`: whole processes in
 * `stratus/processes/`, and parameters Stratus adds to an official process in `stratus/parameters/<id>.json`
 * (`{"id", "parameters": [...]}`), appended to the official list. `SOURCE.md` beside them names the upstream
 * version; a test keeps every vendored file identical to the project's shared copy.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParameterDescription, ProcessDescription } from './types.ts';

const ROOT = import.meta.dirname;
export const OFFICIAL_DIR = join(ROOT, 'openeo');
export const STRATUS_DIR = join(ROOT, 'stratus');

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** The vendored file of an official process (stable first, then proposals), or undefined. */
export function officialDescriptionPath(id: string): string | undefined {
  for (const path of [join(OFFICIAL_DIR, `${id}.json`), join(OFFICIAL_DIR, 'proposals', `${id}.json`)])
    if (existsSync(path)) return path;
  return undefined;
}

/**
 * The description a process is served with: the official one with Stratus's added parameters, or Stratus's own.
 * Throws when there is none, so that a process cannot be registered undescribed.
 */
export function loadDescription(id: string): ProcessDescription {
  const official = officialDescriptionPath(id);
  const own = join(STRATUS_DIR, 'processes', `${id}.json`);
  if (official && existsSync(own)) throw new Error(`process ${id} is described both officially and by Stratus`);
  const description = official
    ? readJson<ProcessDescription>(official)
    : existsSync(own)
      ? readJson<ProcessDescription>(own)
      : undefined;
  if (!description) throw new Error(`no description for process ${id}`);
  if (description.id !== id) throw new Error(`the description of ${id} describes ${description.id}`);
  const extension = join(STRATUS_DIR, 'parameters', `${id}.json`);
  if (existsSync(extension)) {
    const added = readJson<{ id: string; parameters: ParameterDescription[] }>(extension);
    const names = new Set(description.parameters.map((p) => p.name));
    for (const parameter of added.parameters) {
      if (names.has(parameter.name)) throw new Error(`${extension} redefines parameter ${parameter.name}`);
    }
    return { ...description, parameters: [...description.parameters, ...added.parameters] };
  }
  return description;
}
