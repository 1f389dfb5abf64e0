import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtInRegistry } from '../../core/processing/registry.ts';
import { UPSTREAM_DEFECTS } from './defects.ts';
import { loadVectors } from './load.ts';
import { runVector } from './runner.ts';

describe('the recorded upstream defects of the openEO test vectors', () => {
  it.each(UPSTREAM_DEFECTS.map((d) => [d.process, d.vector, d] as const))(
    '%s vector #%i still has its defect upstream, fails as written, and is corrected',
    async (process, index, defect) => {
      const original = loadVectors(process)!.tests[index]!;
      expect(defect.present(original)).toBe(true);
      expect(defect.present(defect.correct(original))).toBe(false);
      expect(await runVector(process, original, builtInRegistry())).toBeDefined();
      expect(await runVector(process, defect.correct(original), builtInRegistry())).toBeUndefined();
    },
  );

  it('are listed in docs/processing.md', async () => {
    const docs = await readFile(resolve(import.meta.dirname, '../../docs/processing.md'), 'utf8');
    for (const d of UPSTREAM_DEFECTS)
      expect(docs, `${d.process} #${d.vector}`).toContain(`| \`${d.process}\` | ${d.vector} |`);
  });

  it('names each vector once', () => {
    const keys = UPSTREAM_DEFECTS.map((d) => `${d.process}#${d.vector}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
