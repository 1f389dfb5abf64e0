import { describe, expect, it } from 'vitest';
import { API_VERSION, validateObject } from '../registry.ts';

const table = (source: unknown) =>
  validateObject({
    apiVersion: API_VERSION,
    kind: 'AnalyticsTable',
    metadata: { name: 'indices', namespace: 'default' },
    spec: { source, featureCollection: 'districts' },
  });

describe('the AnalyticsTable source', () => {
  it('is a dataset or a workflow with its parameters', () => {
    expect(table({ dataset: 'chirps', band: 'precip' })).toMatchObject({ ok: true });
    const workflow = table({ workflow: { name: 'spi-3', parameters: { scale: 3 } } });
    expect(workflow).toMatchObject({
      ok: true,
      object: { spec: { source: { workflow: { name: 'spi-3', parameters: { scale: 3 } } } } },
    });
    expect(table({ workflow: { name: 'spi-3' } })).toMatchObject({
      ok: true,
      object: { spec: { source: { workflow: { parameters: {} } } } },
    });
  });

  it('refuses both, neither, and a band of a workflow, naming the field', () => {
    const exactlyOne = {
      ok: false,
      issues: [{ field: 'spec.source', message: 'set dataset or workflow, exactly one of them' }],
    };
    expect(table({ dataset: 'chirps', workflow: { name: 'spi-3' } })).toEqual(exactlyOne);
    expect(table({})).toEqual(exactlyOne);
    expect(table({ workflow: { name: 'spi-3' }, band: 'precip' })).toEqual({
      ok: false,
      issues: [
        { field: 'spec.source.band', message: 'names a variable of the source dataset; a workflow source has none' },
      ],
    });
    expect(table({ workflow: { name: 'Not_A_Name' } })).toMatchObject({
      ok: false,
      issues: [{ field: 'spec.source.workflow.name' }],
    });
    expect(table({ workflow: { name: 'spi-3', parameters: [3] } })).toMatchObject({
      ok: false,
      issues: [{ field: 'spec.source.workflow.parameters' }],
    });
  });
});
