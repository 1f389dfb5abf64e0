import { describe, expect, it } from 'vitest';
import { documentedCodes } from '../../test/support/documented-codes.ts';
import { PROCESSING_ERROR_STATUS, ProcessingError } from './errors.ts';
import { builtInRegistry } from './registry.ts';

describe('the processing error catalogue', () => {
  it('is documented in docs/errors.md exactly, each code with its status', async () => {
    const documented = await documentedCodes('errors.md', 'Processing errors (openEO)');
    expect([...documented.keys()].sort()).toEqual(Object.keys(PROCESSING_ERROR_STATUS).sort());
    for (const [code, status] of Object.entries(PROCESSING_ERROR_STATUS))
      expect(documented.get(code)?.status, code).toBe(String(status));
  });

  it('holds every exception the descriptions of the listed processes name', () => {
    const registry = builtInRegistry();
    for (const id of registry.ids())
      for (const code of Object.keys(registry.get(id)!.description.exceptions ?? {}))
        expect(PROCESSING_ERROR_STATUS, `${id}: ${code}`).toHaveProperty(code);
  });

  it('keeps the deepest node that failed, in its message too', () => {
    const error = new ProcessingError('DimensionNotAvailable', 'No dimension t.').at('reduce/inner').at('reduce');
    expect(error.status).toBe(400);
    expect(error.node).toBe('reduce/inner');
    expect(error.code).toBe('DimensionNotAvailable');
    expect(error.message).toBe("No dimension t. (node 'reduce/inner')");
  });
});
