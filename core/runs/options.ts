/**
 * How every kind of run retries a failed attempt and splits a long one into parts run by several workers at once,
 * one option for all (ingestions, batch jobs, deliveries, analytics table builds); the operator's configuration
 * sets it (docs/configuration.md).
 */
import { DEFAULT_BACKOFF, type RetryBackoff } from './backoff.ts';

/** An attempt of more than `periodsPerPart` time steps runs as up to `maxParts` parts, `parallelism` at a time. */
export interface SplitOptions {
  periodsPerPart: number;
  maxParts: number;
  parallelism: number;
}

export const defaultSplitOptions: SplitOptions = { periodsPerPart: 366, maxParts: 8, parallelism: 4 };

export interface RunOptions {
  backoff: RetryBackoff;
  /** When attempts are split into parts; never when absent. */
  split?: SplitOptions;
}

export const defaultRunOptions: RunOptions = { backoff: DEFAULT_BACKOFF, split: defaultSplitOptions };
