/**
 * The saved export payload of a job, its dhis2-json result (`result.dhis2.json`): DHIS2 data values keyed by data
 * element, period and org unit, as `core/processing/results/dhis2-json.ts` writes them.
 */
import { z } from 'zod';

export const DEFAULT_COMBO = 'HllvX50cXC0';

export const dataValueSchema = z.object({
  dataElement: z.string().min(1),
  period: z.string().min(1),
  orgUnit: z.string().min(1),
  categoryOptionCombo: z.string().min(1).optional(),
  attributeOptionCombo: z.string().min(1).optional(),
  value: z.string(),
});

export type DataValue = z.infer<typeof dataValueSchema>;

export const payloadSchema = z.object({ dataValues: z.array(dataValueSchema) });

/** The payload's file among a job's results. */
export const PAYLOAD_FILE = 'result.dhis2.json';

/** What identifies a value at the target: DHIS2's unique key of a data value. */
export const valueKey = (v: Omit<DataValue, 'value'>) =>
  [
    v.dataElement,
    v.period,
    v.orgUnit,
    v.categoryOptionCombo ?? DEFAULT_COMBO,
    v.attributeOptionCombo ?? DEFAULT_COMBO,
  ].join('|');

/** Whether the target's value is the value sent: the same text, or the same number written another way. */
export const sameValue = (a: string | undefined, b: string) =>
  a !== undefined && (a === b || (a !== '' && b !== '' && Number(a) === Number(b)));
