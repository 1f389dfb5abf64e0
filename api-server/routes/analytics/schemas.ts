import { z } from 'zod';

/** DHIS2 writes the items of a dimension separated by semicolons (`ou=SD01;SD02`). */
const items = (what: string) => z.string().min(1).max(4096).optional().describe(what);

export const analyticsQuerySchema = z.object({
  ou: items('Org units: feature ids separated by `;`. Absent: every org unit.'),
  pe: items(
    'Periods: DHIS2 period ids (`20240105`, `2024W5`, `202401`, `2024`) and relative periods (`LAST_12_MONTHS`, ' +
      '`THIS_YEAR`, `LAST_52_WEEKS`, ...) separated by `;`. Absent: every period of the table.',
  ),
  stat: items('Statistics (`mean`, `sum`, `min`, `max`, `count`) separated by `;`. Absent: every one of the table.'),
  format: z
    .enum(['json', 'csv', 'parquet'])
    .optional()
    .describe('Representation; overrides Accept (`text/csv`, `application/vnd.apache.parquet`) and a path suffix.'),
});

const headerSchema = z.object({
  name: z.string(),
  column: z.string(),
  valueType: z.string(),
  type: z.string(),
  hidden: z.boolean(),
  meta: z.boolean(),
});

export const analyticsResponseSchema = z
  .object({
    headers: z.array(headerSchema),
    metaData: z.object({
      items: z.record(z.string(), z.object({ name: z.string() })),
      dimensions: z.object({ dx: z.array(z.string()), ou: z.array(z.string()), pe: z.array(z.string()) }),
    }),
    rows: z.array(z.array(z.string())).describe('`[dx, ou, pe, value]`: the statistic, org unit, period and value.'),
    headerWidth: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
  })
  .meta({
    id: 'AnalyticsResponse',
    description: "An analytics table's answer, in the shape of DHIS2's /api/analytics.",
  });
