/**
 * Every official test vector of every process in the registry, run through the real graph evaluator. A listed
 * process must pass all of its vectors (corrected where `defects.ts` records an upstream defect); the processes a
 * vector requires must be listed too. Prints the counts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { builtInRegistry } from '../../core/processing/registry.ts';
import { defectOf } from './defects.ts';
import { loadVectors } from './load.ts';
import { runVector } from './runner.ts';

const registry = builtInRegistry();
const counts = { processes: 0, withVectors: 0, vectors: 0, passed: 0, corrected: 0 };

describe('the official openEO test vectors', () => {
  for (const id of registry.ids()) {
    counts.processes++;
    const file = loadVectors(id);
    if (!file || file.tests.length === 0) continue;
    counts.withVectors++;
    describe(id, () => {
      for (const original of file.tests) {
        const defect = defectOf(id, original.index);
        const vector = defect ? defect.correct(original) : original;
        it(`vector #${original.index}${defect ? ' (corrected, see defects.ts)' : ''}`, async () => {
          counts.vectors++;
          for (const required of vector.required ?? [])
            expect(registry.get(required), `requires ${required}`).toBeDefined();
          const failure = await runVector(id, vector, registry);
          expect(failure, JSON.stringify(original.arguments).slice(0, 400)).toBeUndefined();
          counts.passed++;
          if (defect) counts.corrected++;
        });
      }
    });
  }
  afterAll(() => {
    console.log(
      `openEO test vectors: ${counts.processes} processes listed, ${counts.withVectors} with vectors; ` +
        `${counts.vectors} vectors run, ${counts.passed} passed (${counts.corrected} corrected upstream defects)`,
    );
  });
});
