import { describe, expect, it } from 'vitest';
import { unionFetch } from './union-range.ts';

const bbox: [number, number, number, number] = [0, 0, 1, 1];
const current = {
  coverage: {
    spatial: { xmin: 0, ymin: 0, xmax: 1, ymax: 1 },
    temporal: { start: '2024-01-01', end: '2024-12-31' },
  },
  // The request that made the current version is provenance only: a three-day request must not narrow the plan.
  requestScope: { start: '2024-06-01', end: '2024-06-03', bbox },
};

describe('unionFetch', () => {
  it.each([
    ['inside the coverage', '2024-01-01', '2024-01-03', false, { kind: 'held' }],
    ['inside the coverage, with overwrite', '2024-01-01', '2024-01-03', true, splice('2024-01-01', '2024-01-03')],
    ['overlapping its end', '2024-12-30', '2025-01-02', false, splice('2024-12-30', '2025-01-02')],
    ['right after its end', '2025-01-01', '2025-01-02', false, splice('2025-01-01', '2025-01-02')],
    ['after its end, with a gap', '2025-01-05', '2025-01-06', false, splice('2025-01-01', '2025-01-06')],
    ['overlapping its start', '2023-12-30', '2024-01-02', false, splice('2023-12-30', '2024-01-02')],
    ['before its start, with a gap', '2023-12-01', '2023-12-02', false, splice('2023-12-01', '2023-12-31')],
    ['around the whole coverage', '2023-12-31', '2025-01-01', false, splice('2023-12-31', '2025-01-01')],
  ])('a range %s', (_name, start, end, overwrite, expected) => {
    expect(unionFetch('daily', current, { start, end, bbox }, overwrite)).toEqual(expected);
  });

  it('fetches a range inside the coverage again when the area changed', () => {
    const wider: [number, number, number, number] = [0, 0, 2, 2];
    const decided = unionFetch('daily', current, { start: '2024-02-01', end: '2024-02-02', bbox: wider }, false);
    expect(decided).toEqual(splice('2024-02-01', '2024-02-02'));
  });
});

function splice(start: string, end: string) {
  return { kind: 'splice', range: { start, end } };
}
