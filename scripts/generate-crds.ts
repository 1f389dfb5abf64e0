/**
 * Writes crds/ and docs/resources.md from the zod schemas (`make crds`), or with --check exits 1 when the committed files differ
 * (`make verify`).
 */
import { mkdir, readFile, readdir, writeFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { crdFileName, renderCrd } from '../core/resources/crd/render.ts';
import { lintStructuralSchema } from '../core/resources/crd/lint.ts';
import { renderReference } from '../core/resources/crd/reference.ts';
import { toStructuralSchema } from '../core/resources/crd/to-openapi.ts';
import { resourceKinds } from '../core/resources/registry.ts';

const dir = resolve(import.meta.dirname, '..', 'crds');
const check = process.argv.includes('--check');

const findings = resourceKinds.flatMap((kind) =>
  lintStructuralSchema(toStructuralSchema(kind.schema)).map((f) => `${kind.kind}${f.path}: ${f.rule}: ${f.message}`),
);
if (findings.length > 0) {
  console.error(`structural schema violations:\n${findings.join('\n')}`);
  process.exit(1);
}

const wanted = new Map(resourceKinds.map((kind) => [crdFileName(kind), renderCrd(kind)]));
await mkdir(dir, { recursive: true });
const present = (await readdir(dir)).filter((f) => f.endsWith('.yaml'));
const problems: string[] = [];
for (const [file, text] of wanted) {
  const current = await readFile(join(dir, file), 'utf8').catch(() => undefined);
  if (current === text) continue;
  if (check) problems.push(current === undefined ? `${file}: missing` : `${file}: differs from the schema`);
  else await writeFile(join(dir, file), text);
}
for (const file of present.filter((f) => !wanted.has(f))) {
  if (check) problems.push(`${file}: no schema generates it`);
  else await rm(join(dir, file));
}
const referencePath = resolve(import.meta.dirname, '..', 'docs', 'resources.md');
const reference = renderReference(resourceKinds);
if ((await readFile(referencePath, 'utf8').catch(() => undefined)) !== reference) {
  if (check) problems.push('docs/resources.md: differs from the schemas');
  else await writeFile(referencePath, reference);
}
if (problems.length > 0) {
  console.error(
    `crds/ or docs/resources.md is out of date with core/resources (run \`make crds\`):\n  ${problems.join('\n  ')}`,
  );
  process.exit(1);
}
console.log(check ? `crds/ matches the schemas (${wanted.size} CRDs)` : `wrote ${wanted.size} CRDs to crds/`);
