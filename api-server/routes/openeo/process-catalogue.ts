import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export type ProcessDescription = Record<string, unknown> & { id: string };

export interface ProcessCatalogueOptions {
  /** Ids of the processes to serve (the engine's are `IMPLEMENTED_PROCESSES` of core/processing/index.ts). */
  implemented: readonly string[];
  /** A directory of the official openEO process descriptions, `<id>.json` each; needed once `implemented` is not empty. */
  descriptionsDir?: string;
}

/**
 * Loads the official description of every implemented process, once, at start: a process the engine runs but
 * whose description is missing stops the server instead of being served half-described.
 */
export async function loadProcessCatalogue({
  implemented,
  descriptionsDir,
}: ProcessCatalogueOptions): Promise<Map<string, ProcessDescription>> {
  const catalogue = new Map<string, ProcessDescription>();
  if (implemented.length === 0) return catalogue;
  if (!descriptionsDir)
    throw new Error(`processes ${implemented.join(', ')} are implemented but no process descriptions directory is set`);
  for (const id of [...implemented].sort()) {
    const description = JSON.parse(await readFile(join(descriptionsDir, `${id}.json`), 'utf8')) as ProcessDescription;
    if (description.id !== id) throw new Error(`${id}.json in ${descriptionsDir} describes process ${description.id}`);
    catalogue.set(id, description);
  }
  return catalogue;
}
