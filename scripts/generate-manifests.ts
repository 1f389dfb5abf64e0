/**
 * Writes the Kustomize base `manifests/base/` from the sources it mirrors (`make crds`), or with --check exits 1
 * when the committed files differ (`make verify`): the CRDs of `crds/` and the objects the Helm chart renders with
 * its default values (the built-in DataSources among them). `kubectl apply -k manifests/base` then installs what
 * `helm install stratus charts/stratus -n stratus` does, for GitOps tools that prefer plain manifests.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runTool } from './kube-cli.ts';

const root = resolve(import.meta.dirname, '..');
const base = join(root, 'manifests', 'base');
const check = process.argv.includes('--check');
const header = (from: string) =>
  `# Generated from ${from} by scripts/generate-manifests.ts (make crds); do not edit.\n`;

/** Every YAML file of `dir`, by name, as one multi-document stream. */
async function concatenated(dir: string): Promise<string> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml').sort();
  const texts = await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')));
  return texts.map((t) => `---\n${t.trimEnd()}\n`).join('');
}

async function chart(): Promise<string> {
  const { code, stdout, stderr } = await runTool('helm', [
    'template',
    'stratus',
    join(root, 'charts', 'stratus'),
    '--namespace',
    'stratus',
    '--skip-crds',
  ]);
  if (code !== 0) throw new Error(`helm template failed: ${stderr}`);
  return stdout;
}

const wanted = new Map([
  ['crds.yaml', header('crds/') + (await concatenated(join(root, 'crds')))],
  ['stratus.yaml', header('charts/stratus with its default values') + (await chart())],
]);
const problems: string[] = [];
for (const [file, text] of wanted) {
  const current = await readFile(join(base, file), 'utf8').catch(() => undefined);
  if (current === text) continue;
  if (check) problems.push(`manifests/base/${file}: ${current === undefined ? 'missing' : 'differs from its sources'}`);
  else await writeFile(join(base, file), text);
}
if (problems.length > 0) {
  console.error(`manifests/base is out of date (run \`make crds\`):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(check ? 'manifests/base matches its sources' : 'wrote manifests/base');
