/**
 * The columns of an AnalyticsTable's Parquet file, in order, one row per org unit, period and statistic, sorted
 * by `ou`, then `periodType`, then `pe`, then `stat`. The file is read as it is by DuckDB and by the API server.
 */
export const analyticsTableColumns = [
  { name: 'ou', type: 'STRING', description: 'Org unit: the feature id (`idProperty`) of the feature collection.' },
  { name: 'periodType', type: 'STRING', description: 'daily, weekly, monthly or yearly.' },
  { name: 'pe', type: 'STRING', description: 'DHIS2 period id: 20240105, 2024W5, 202401, 2024.' },
  { name: 'stat', type: 'STRING', description: 'mean, sum, min, max or count.' },
  { name: 'value', type: 'DOUBLE', description: 'The statistic; null when no cell of the org unit has data.' },
  { name: 'sourceVersion', type: 'STRING', description: 'The dataset version the value was computed from.' },
] as const;

export type AnalyticsTableColumn = (typeof analyticsTableColumns)[number]['name'];
