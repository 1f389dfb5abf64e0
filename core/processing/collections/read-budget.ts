import { ProcessingError } from '../errors.ts';

/** How many cells a run may still read from the stores: each chunk read takes its cells, past the limit it stops. */
export interface ReadBudget {
  take(cells: number): void;
}

export function readBudget(maxCells: number): ReadBudget {
  let read = 0;
  return {
    take(cells) {
      read += cells;
      if (read > maxCells)
        throw new ProcessingError(
          'ProcessGraphComplexity',
          `The run reads more than the ${maxCells} cells a synchronous run may read; run it as a batch job (POST /jobs) or over a smaller extent.`,
        );
    },
  };
}
