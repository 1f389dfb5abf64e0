import { z } from 'zod';

export const analyticsQuerySchema = z.object({
  ou: z
    .string()
    .optional()
    .describe(
      'Org units, `;`-separated: feature ids, and `LEVEL-n` for the units of level n (within the other items, their ancestors: `ou=PARENT;LEVEL-2`) where the features carry a `level` and `parent_id`. Absent: all.',
    ),
  pe: z
    .string()
    .optional()
    .describe(
      'Periods, `;`-separated: DHIS2 ids (`20240105`, `2024W5`, `202401`, `2024`) and relative periods (`THIS_MONTH`, `LAST_12_MONTHS`, `LAST_52_WEEKS`, `THIS_YEAR`, `LAST_5_YEARS`, ...; docs/analytics.md). Absent: all.',
    ),
  stat: z
    .string()
    .optional()
    .describe('Statistics, `;`-separated: mean, sum, min, max, count. Absent: all of the table.'),
  dimension: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe(
      "DHIS2's form of the dimensions, repeated, one per dimension: `dimension=ou:ID1;ID2&dimension=pe:LAST_12_MONTHS`; `dx` is the statistic (`stat`). The same items as `ou`, `pe` and `stat`; a dimension given twice, in either form, is a 400 naming it.",
    ),
  filter: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe(
      "DHIS2's filters, repeated, one per dimension: `filter=ou:ID1;ID2` (`ou`, `pe`; `dx` with one statistic). A filter is not a column of the answer: each value aggregates over the filter's items (docs/analytics.md). A dimension both a filter and a dimension is a 400 naming it.",
    ),
  format: z.enum(['json', 'csv', 'parquet']).optional().describe('Representation; overrides Accept.'),
});

const headerSchema = z.object({
  name: z.string(),
  column: z.string(),
  valueType: z.string(),
  type: z.string(),
  hidden: z.boolean(),
  meta: z.boolean(),
});

export const analyticsAnswerSchema = z
  .object({
    headers: z
      .array(headerSchema)
      .describe('The columns of `rows`: dx (the statistic), ou, pe (those that are not filters), value.'),
    metaData: z.object({
      items: z
        .record(z.string(), z.object({ name: z.string() }))
        .describe("Names of the dimension items, the filters' included."),
      dimensions: z.object({
        dx: z.array(z.string()),
        ou: z.array(z.string()),
        pe: z.array(z.string()),
        co: z.array(z.string()),
      }),
    }),
    rows: z
      .array(z.array(z.string()))
      .describe(
        'One row per statistic, org unit and period with a value (per item of the dimensions that are not filters).',
      ),
    headerWidth: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
  })
  .meta({ id: 'AnalyticsResponse', description: "DHIS2 analytics' response." });
