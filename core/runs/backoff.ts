/**
 * The retry backoff of every run (DESIGN.md §4): attempt n failed, the next starts min(cap, base * 2^(n-1)) seconds
 * later. Ingestions take base and cap from the operator's configuration; batch jobs use the defaults.
 */
export interface RetryBackoff {
  retryBaseSeconds: number;
  retryCapSeconds: number;
}

export const DEFAULT_BACKOFF: RetryBackoff = { retryBaseSeconds: 60, retryCapSeconds: 240 };

export function retryDelaySeconds(failedAttempt: number, backoff: RetryBackoff = DEFAULT_BACKOFF): number {
  return Math.min(backoff.retryCapSeconds, backoff.retryBaseSeconds * 2 ** (failedAttempt - 1));
}
