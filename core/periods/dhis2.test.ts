import { describe, expect, it } from 'vitest';
import { dhis2Id, dhis2Period, parseDhis2Period } from './dhis2.ts';

describe('DHIS2 period ids', () => {
  it('names periods as DHIS2 does', () => {
    const at = (iso: string) => Date.parse(iso);
    expect(dhis2Period('daily', at('2024-01-05T00:00:00Z'))).toBe('20240105');
    expect(dhis2Period('weekly', at('2024-01-29T00:00:00Z'))).toBe('2024W5');
    expect(dhis2Period('weekly', at('2021-01-01T00:00:00Z'))).toBe('2020W53');
    expect(dhis2Period('monthly', at('2024-11-01T00:00:00Z'))).toBe('202411');
    expect(dhis2Period('yearly', at('2024-01-01T00:00:00Z'))).toBe('2024');
  });

  it('reads the four period types and refuses others', () => {
    expect(parseDhis2Period('20240229')?.type).toBe('daily');
    expect(parseDhis2Period('2024W9')?.start.toISOString()).toBe('2024-02-26T00:00:00.000Z');
    expect(parseDhis2Period('2020W53')?.start.toISOString()).toBe('2020-12-28T00:00:00.000Z');
    expect(parseDhis2Period('202402')?.type).toBe('monthly');
    expect(parseDhis2Period('2024')?.type).toBe('yearly');
    for (const bad of ['20230229', '2024W54', '202413', '2024Q1', '2024-01', ''])
      expect(parseDhis2Period(bad)).toBeUndefined();
  });

  it('reads back the id it writes', () => {
    for (const id of ['20240105', '2024W5', '2026W53', '202411', '2024'])
      expect(dhis2Id(parseDhis2Period(id)!)).toBe(id);
  });
});
