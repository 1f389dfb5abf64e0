/**
 * One row of the table of current headlines that `make bench` writes at the top of docs/performance.md. Each
 * benchmark returns its rows; the writer adds the median and range of `ratios`, the machine load and the date.
 */
export interface Headline {
  /** What is measured, with its size: "zonal mean, 2,000 polygons x 365 steps, in memory". */
  figure: string;
  /** The peer and its configuration as its own users run it: "numpy 1.24, window masks, 1 thread". */
  peer: string;
  /** Peer time over Stratus time, one per run: above 1, Stratus is faster. */
  ratios: number[];
  /** The ratio the issue asks for, when there is one. */
  goal?: number;
  /** How to rerun this row alone. */
  command: string;
}
