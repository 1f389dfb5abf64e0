import { z } from 'zod';
import { dateTime, dnsLabel, refinementReading, runStatusFields, statusBase } from '../common.ts';
import { exportPeriodType } from '../export/schema.ts';
import { defineKind } from '../kind.ts';
import { analyticsTableConditions } from './conditions.ts';

export const analyticsStatistics = ['mean', 'sum', 'min', 'max', 'count'] as const;
export type AnalyticsStatistic = (typeof analyticsStatistics)[number];

export const analyticsTableSpecSchema = z
  .object({
    source: z
      .object({
        dataset: dnsLabel.optional().describe('The Dataset whose served version is aggregated.'),
        band: z.string().min(1).optional().describe('The variable of the dataset; absent: its only variable.'),
        workflow: z
          .object({
            name: dnsLabel.describe('The Workflow (a stored openEO process) whose result is aggregated.'),
            parameters: z
              .record(z.string(), z.unknown())
              .default({})
              .describe("Arguments of the workflow's parameters, by name."),
          })
          .optional()
          .describe(
            "A workflow run with these arguments over the datasets it loads; its result, a raster cube of one band over time on a dataset's grid (such as a climate index), is aggregated. Rebuilt whole whenever a dataset it loads serves a new version or the Workflow changes.",
          ),
      })
      .refine((source) => (source.dataset === undefined) !== (source.workflow === undefined), {
        message: 'set dataset or workflow, exactly one of them',
        ...refinementReading(['dataset'], ['workflow']),
      })
      .refine((source) => source.band === undefined || source.dataset !== undefined, {
        message: 'names a variable of the source dataset; a workflow source has none',
        path: ['band'],
        ...refinementReading(['dataset'], ['band']),
      })
      .describe('What is aggregated: a dataset, or a workflow with its parameters.'),
    featureCollection: dnsLabel.describe('The FeatureCollection whose features are the org units (rows of the table).'),
    periodTypes: z
      .array(exportPeriodType)
      .min(1)
      .default(['monthly'])
      .refine((types) => new Set(types).size === types.length, { message: 'must not repeat a period type' })
      .describe('The DHIS2 period types the table holds (ids `20240105`, `2024W5`, `202401`, `2024`).'),
    statistics: z
      .array(z.enum(analyticsStatistics, { message: `must be one of ${analyticsStatistics.join(', ')}` }))
      .min(1)
      .default(['mean'])
      .refine((stats) => new Set(stats).size === stats.length, { message: 'must not repeat a statistic' })
      .describe('The statistics of each org unit and period, over its cells and the time steps of the period.'),
    weighting: z
      .enum(['coverage', 'population'], { message: 'must be coverage or population' })
      .default('coverage')
      .describe(
        "How cells count: by the fraction of each cell inside the org unit (`coverage`), or by that fraction times the cell's population (`population`, from `populationDataset`).",
      ),
    populationDataset: dnsLabel
      .optional()
      .describe('The Dataset of population counts on the same grid (such as WorldPop); required for `population`.'),
    tableHistoryLimit: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(2)
      .describe('Published table versions kept, newest first; readers of an older one finish within the grace period.'),
  })
  .refine((spec) => spec.weighting !== 'population' || spec.populationDataset !== undefined, {
    message: 'is required when weighting is population',
    path: ['populationDataset'],
    ...refinementReading(['weighting'], ['populationDataset']),
  })
  .describe(
    'A table of every org unit × period × statistic of a dataset or a workflow, kept current as its sources change.',
  );

export const analyticsTableVersionSchema = z
  .object({
    id: z.string().describe('Version id of the table (sorts by creation time).'),
    path: z
      .string()
      .describe(
        'Store path of its directory: hive partitions by year of its period ids, each a Parquet file per month and one for the year (`year=2024/03.parquet`, `year=2024/year.parquet`).',
      ),
    sourceVersion: z
      .string()
      .describe(
        'The dataset version it was computed from; for a workflow source, the Workflow generation and the versions of the datasets it loads (`workflow@3,chirps@v12`).',
      ),
    featureCollectionPath: z.string().describe('The stored feature collection file it was computed with.'),
    generation: z.number().int().min(0).describe('The `metadata.generation` of the spec it was computed with.'),
    rows: z.number().int().min(0).describe('Rows of the table.'),
    periods: z
      .object({ start: z.string(), end: z.string() })
      .optional()
      .describe('First and last day covered, ISO dates.'),
    computedPeriods: z
      .number()
      .int()
      .min(0)
      .describe('Periods computed by the build that wrote it (all of them for a full build).'),
    cellsRead: z.number().int().min(0).describe('Cells × time steps the build read from the source.'),
    publishedAt: dateTime,
  })
  .describe('A published version of the table.');

export const analyticsTableStatusSchema = z
  .object({
    ...statusBase,
    ...runStatusFields,
    target: z
      .object({
        sourceVersion: z.string(),
        featureCollectionPath: z.string(),
        generation: z.number().int().min(0),
      })
      .optional()
      .describe('What the current or last build computes: the dataset version, collection file and spec generation.'),
    runFirstAttempt: z.number().int().min(1).optional().describe('The first attempt of the current build.'),
    table: analyticsTableVersionSchema.optional().describe('The version readers are served.'),
    versions: z
      .array(analyticsTableVersionSchema)
      .optional()
      .describe('Published versions, newest first (`spec.tableHistoryLimit`).'),
  })
  .describe('Observed state of the table.');

export const { kind: analyticsTableKind, schema: analyticsTableSchema } = defineKind({
  kind: 'AnalyticsTable',
  plural: 'analyticstables',
  shortNames: ['sat'],
  description: 'Precomputed org unit × period statistics of a dataset or a workflow, served by GET /analytics/{name}.',
  spec: analyticsTableSpecSchema,
  status: analyticsTableStatusSchema,
  conditions: analyticsTableConditions,
  columns: [
    { name: 'Dataset', type: 'string', jsonPath: '.spec.source.dataset' },
    { name: 'Workflow', type: 'string', jsonPath: '.spec.source.workflow.name' },
    { name: 'Features', type: 'string', jsonPath: '.spec.featureCollection' },
    { name: 'Rows', type: 'integer', jsonPath: '.status.table.rows' },
  ],
});

export type AnalyticsTable = z.infer<typeof analyticsTableSchema>;
export type AnalyticsTableStatus = NonNullable<AnalyticsTable['status']>;
export type AnalyticsTableVersion = z.infer<typeof analyticsTableVersionSchema>;
