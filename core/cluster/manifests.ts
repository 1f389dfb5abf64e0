import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { FieldCause } from './errors.ts';
import { objectKey, type KindRef, type KubeObject } from './objects.ts';
import type { Cluster } from './port.ts';

export type Validate = (object: unknown) => { ok: true; object: KubeObject } | { ok: false; issues: FieldCause[] };

export interface ManifestFile {
  file: string;
  documents: KubeObject[];
}

export interface ManifestProblem {
  file: string;
  /** 0-based index of the YAML document in its file. */
  document: number;
  field?: string;
  message: string;
}

/** Every problem of a manifest directory at once, so a user fixes them in one pass. */
export class ManifestError extends Error {
  readonly problems: ManifestProblem[];

  constructor(problems: ManifestProblem[]) {
    super(
      `invalid manifests (document indexes count from 0):\n${problems
        .map((p) => `  ${p.file} [document ${p.document}]${p.field ? ` ${p.field}` : ''}: ${p.message}`)
        .join('\n')}`,
    );
    this.name = 'ManifestError';
    this.problems = problems;
  }
}

async function yamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** How many aliases a document may expand (an alias bomb expands billions); real manifests use a handful. */
const MAX_ALIASES = 100;

/**
 * Reads every `*.yaml`/`*.yml` under each of `dirs` (recursively, in path order; the directories in the order
 * given), multi-document files included, and validates each document. Throws one ManifestError naming file,
 * document index and field of every problem of every directory, so nothing is applied from any of them.
 */
export async function loadManifests(dirs: string | string[], validate: Validate): Promise<ManifestFile[]> {
  const problems: ManifestProblem[] = [];
  const files: ManifestFile[] = [];
  const paths: string[] = [];
  for (const dir of typeof dirs === 'string' ? [dirs] : dirs) paths.push(...(await yamlFiles(dir)));
  for (const path of paths) {
    const file = relative(process.cwd(), path) || path;
    const documents: KubeObject[] = [];
    const parsed = parseAllDocuments(await readFile(path, 'utf8'));
    const docs = Array.isArray(parsed) ? parsed : [parsed];
    docs.forEach((doc, index) => {
      for (const error of doc.errors) {
        const at = error.linePos?.[0];
        problems.push({
          file,
          document: index,
          message: `YAML syntax error${at ? ` at line ${at.line}, column ${at.col}` : ''}: ${error.message.split('\n')[0]}`,
        });
      }
      if (doc.errors.length > 0) return;
      let value: unknown;
      try {
        value = doc.toJS({ maxAliasCount: MAX_ALIASES });
      } catch (err) {
        // The yaml package refuses an alias bomb with a ReferenceError while building the value.
        problems.push({ file, document: index, message: `cannot be read: ${(err as Error).message}` });
        return;
      }
      if (value === null || value === undefined) return; // an empty document, e.g. after a trailing `---`
      const result = validate(value);
      if (result.ok) documents.push(result.object);
      else
        for (const issue of result.issues)
          problems.push({ file, document: index, field: issue.field, message: issue.message });
    });
    files.push({ file, documents });
  }
  if (problems.length > 0) throw new ManifestError(problems);
  return files;
}

/** How many applies are in flight at once: enough for the embedded store to commit them in groups. */
const APPLY_CONCURRENCY = 32;

/**
 * Applies loaded manifests, `APPLY_CONCURRENCY` at a time, so that ten thousand documents take one group commit per
 * batch rather than one flush each; documents that name the same object are applied in file order, the later
 * winning as with `kubectl apply`. Loading already refused the whole directory when any document was invalid: a
 * half-applied directory is harder to reason about than one that was not applied at all. The answer is in
 * document order.
 */
export async function applyManifests(
  cluster: Cluster,
  files: ManifestFile[],
  kindFor: (object: KubeObject) => KindRef,
): Promise<KubeObject[]> {
  const documents = files.flatMap((f) => f.documents);
  const applied: KubeObject[] = new Array<KubeObject>(documents.length);
  const last = new Map<string, Promise<unknown>>();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < documents.length; i = next++) {
      const document = documents[i]!;
      const key = `${document.apiVersion}/${document.kind}/${objectKey(document)}`;
      // Taken in index order by one synchronous step, so an earlier document of the same object is chained first.
      const before = last.get(key);
      const apply = (async () => {
        await before;
        applied[i] = await cluster.apply(kindFor(document), document, { fieldManager: 'stratus-manifests' });
      })();
      last.set(key, apply);
      await apply;
    }
  };
  await Promise.all(Array.from({ length: Math.min(APPLY_CONCURRENCY, documents.length) }, worker));
  return applied;
}
