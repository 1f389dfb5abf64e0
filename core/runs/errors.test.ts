import { describe, expect, it } from 'vitest';
import { documentedCodes } from '../../test/support/documented-codes.ts';
import { RunError, runErrorCatalogue, runErrorCodeSchema, runErrorCodes } from './errors.ts';

/** What the docs say of a code's retry, from who raises it: the planner's failures and definite outcomes end the run. */
function retried(raisedBy: readonly string[]): string {
  const attempt = raisedBy.filter((source) => source !== 'planner' && source !== 'outcome');
  if (attempt.length === raisedBy.length) return 'yes';
  return attempt.length === 0 ? 'no' : `when raised by the ${attempt.join(' or ')}`;
}

describe('run errors', () => {
  it('are documented in docs/errors.md exactly, each with who raises it and whether the run retries', async () => {
    const documented = await documentedCodes('errors.md', 'Run errors');
    expect([...documented.keys()].sort()).toEqual([...runErrorCodes].sort());
    for (const [code, raisedBy] of Object.entries(runErrorCatalogue)) {
      expect(documented.get(code)?.['raised by'], code).toBe(raisedBy.join(', '));
      expect(documented.get(code)?.retried, code).toBe(retried(raisedBy));
      expect(documented.get(code)?.when, code).not.toBe('');
    }
  });

  it('are valid condition reasons, since a failed run is Stalled with its code as the reason', () => {
    for (const code of runErrorCodes) expect(code).toMatch(/^[A-Z][A-Za-z0-9]*$/);
  });

  it('carry their code and message, and only catalogued codes pass the wire schema', () => {
    const error = new RunError('UpstreamUnavailable', 'https://example.org failed after 4 attempts');
    expect(error).toMatchObject({ name: 'RunError', code: 'UpstreamUnavailable' });
    expect(error.message).toBe('https://example.org failed after 4 attempts');
    expect(runErrorCodeSchema.safeParse('UpstreamUnavailable').success).toBe(true);
    expect(runErrorCodeSchema.safeParse('ProviderError').success).toBe(false);
  });
});
