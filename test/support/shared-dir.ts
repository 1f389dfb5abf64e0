import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

const repository = resolve(import.meta.dirname, '../..');

/** The clone's origin when it is a directory on this machine (a clone of a local checkout), else undefined. */
function localOrigin(): string | undefined {
  try {
    const url = execFileSync('git', ['-C', repository, 'config', '--get', 'remote.origin.url'], {
      encoding: 'utf8',
    }).trim();
    const path = url.startsWith('file://') ? url.slice('file://'.length) : url;
    return isAbsolute(path) && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The project's shared material (the openEO process descriptions, the STAC schemas): `shared/` beside the
 * repository, as CI checks it out; `STRATUS_SHARED_DIR` when set; or, for a clone of a local checkout made
 * elsewhere (`git clone . /tmp/...`), `shared/` beside the checkout it was cloned from.
 */
export function sharedDir(): string {
  const candidates = [
    process.env.STRATUS_SHARED_DIR,
    join(dirname(repository), 'shared'),
    ...[localOrigin()].flatMap((origin) => (origin ? [join(dirname(resolve(origin)), 'shared')] : [])),
  ].filter((candidate): candidate is string => candidate !== undefined);
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`the shared material is in none of: ${candidates.join(', ')}`);
  return found;
}
