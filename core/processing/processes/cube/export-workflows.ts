/**
 * The predefined workflows `aggregate_to_chap_csv` and `aggregate_to_dhis2_json`: datasets aggregated to periods
 * and over a feature collection's features, saved as CHAP CSV or a DHIS2 payload. Each is a process graph of the
 * engine's own processes, built from the arguments once the datasets are open (their bands name the columns) and
 * run inside the calling run, so that its `save_result` writes to the run's sink: `POST /result` answers the file,
 * a batch job stores it, as if the caller had written the graph.
 */
import type { DataCube } from '../../cube/cube.ts';
import { ProcessingError, invalidArgument } from '../../errors.ts';
import { evaluateGraph } from '../../evaluate/evaluate.ts';
import { parseProcessGraph } from '../../graph/parse.ts';
import type { Args, ProcessContext, ProcessDefinition } from '../../process.ts';

/** The workflows' ids, and the arguments that name what they read (for pinning, `jobs/references.ts`). */
export const EXPORT_WORKFLOWS = ['aggregate_to_chap_csv', 'aggregate_to_dhis2_json'] as const;

/** CHAP's names of its covariates, by the stored variable (a dataset's band) they come from. */
export const CHAP_COLUMNS: Readonly<Record<string, string>> = {
  pr: 'rainfall',
  precip: 'rainfall',
  precipitation: 'rainfall',
  tp: 'rainfall',
  rainfall: 'rainfall',
  tas: 'mean_temperature',
  t2m: 'mean_temperature',
  tasmax: 'max_temperature',
  tasmin: 'min_temperature',
  hurs: 'relative_humidity',
  rh: 'relative_humidity',
  population: 'population',
};

/** Amounts per time step, summed over a period by default; anything else is averaged. */
const isPrecipitation = (band: string) => CHAP_COLUMNS[band] === 'rainfall';

const PERIODS: Readonly<Record<string, string>> = { daily: 'day', weekly: 'week', monthly: 'month', yearly: 'year' };

interface Opened {
  dataset: string;
  band: string;
  cube: DataCube;
}

/** Each dataset opened as `load_collection` opens it, with its one band. */
async function openDatasets(process: string, args: Args, context: ProcessContext): Promise<Opened[]> {
  const load = context.processes.get('load_collection')!;
  const opened: Opened[] = [];
  for (const dataset of args.datasets as string[]) {
    const cube = (await load.run(
      {
        id: dataset,
        spatial_extent: null,
        temporal_extent: args.temporal_extent ?? null,
        bands: null,
        properties: null,
      },
      context,
    )) as DataCube;
    const bands = cube.dimensions.find((d) => d.type === 'bands')?.labels.map(String) ?? [];
    if (bands.length !== 1)
      throw invalidArgument(process, 'datasets', `dataset '${dataset}' has ${bands.length} bands; each needs one`);
    opened.push({ dataset, band: bands[0]!, cube });
  }
  return opened;
}

const reducer = (id: string) => ({
  process_graph: { reduce: { process_id: id, arguments: { data: { from_parameter: 'data' } }, result: true } },
});

/**
 * The graph: per dataset (parameter `cube<i>`) its band renamed to its column and aggregated to the period, the
 * datasets merged, aggregated over the features, saved in `format` with `options`.
 */
function aggregationGraph(opened: Opened[], columns: string[], args: Args, format: string, options: object) {
  const graph: Record<string, unknown> = {};
  let merged = '';
  opened.forEach(({ band }, i) => {
    const temporal = (args.temporal_statistic as string | null) ?? (isPrecipitation(band) ? 'sum' : 'mean');
    graph[`rename${i}`] = {
      process_id: 'rename_labels',
      arguments: { data: { from_parameter: `cube${i}` }, dimension: 'bands', target: [columns[i]], source: [band] },
    };
    graph[`period${i}`] = {
      process_id: 'aggregate_temporal_period',
      arguments: {
        data: { from_node: `rename${i}` },
        period: PERIODS[args.period_type as string],
        reducer: reducer(temporal),
      },
    };
    if (i > 0)
      graph[`merge${i}`] = {
        process_id: 'merge_cubes',
        arguments: { cube1: { from_node: merged }, cube2: { from_node: `period${i}` } },
      };
    merged = i > 0 ? `merge${i}` : `period${i}`;
  });
  graph.features = { process_id: 'load_features', arguments: { id: args.features } };
  graph.zonal = {
    process_id: 'aggregate_spatial',
    arguments: {
      data: { from_node: merged },
      geometries: { from_node: 'features' },
      reducer: reducer(args.statistic as string),
    },
  };
  graph.save = {
    process_id: 'save_result',
    arguments: { data: { from_node: 'zonal' }, format, options },
    result: true,
  };
  return graph;
}

/** Runs the built graph with the opened cubes as its parameters; its errors are located under the calling node. */
async function runInside(graph: Record<string, unknown>, opened: Opened[], context: ProcessContext) {
  const parameters = opened.map((_, i) => ({ name: `cube${i}`, description: `dataset ${i}`, schema: {} }));
  const environment = {
    processes: context.processes,
    limits: context.limits,
    services: context.services,
    ...(context.signal && { signal: context.signal }),
    ...(context.memory && { memory: context.memory }),
  };
  try {
    const parsed = await parseProcessGraph(graph, {
      processes: { description: (id) => context.processes.get(id)?.checked },
      limits: context.limits,
      parameters,
    });
    return await evaluateGraph(parsed, Object.fromEntries(opened.map((o, i) => [`cube${i}`, o.cube])), environment);
  } catch (err) {
    if (!(err instanceof ProcessingError) || err.node === undefined) throw err;
    const message = err.message.slice(0, err.message.length - ` (node '${err.node}')`.length);
    throw new ProcessingError(err.code, message, { node: `${context.node}/${err.node}`, cause: err.cause });
  }
}

/** Refuses a mapping by dataset id that names a dataset the call does not aggregate. */
function checkKeys(process: string, parameter: string, mapping: Record<string, unknown>, datasets: string[]) {
  const stray = Object.keys(mapping).find((key) => !datasets.includes(key));
  if (stray) throw invalidArgument(process, parameter, `'${stray}' is not one of the datasets`);
}

async function aggregateToChapCsv(args: Args, context: ProcessContext): Promise<unknown> {
  const process = 'aggregate_to_chap_csv';
  const named = (args.columns ?? {}) as Record<string, string>;
  checkKeys(process, 'columns', named, args.datasets as string[]);
  const opened = await openDatasets(process, args, context);
  const columns = opened.map(({ dataset, band }) => named[dataset] ?? CHAP_COLUMNS[band] ?? band);
  const twice = columns.findIndex((c, i) => columns.indexOf(c) !== i);
  if (twice >= 0)
    throw invalidArgument(
      process,
      'columns',
      `datasets '${opened[columns.indexOf(columns[twice]!)]!.dataset}' and '${opened[twice]!.dataset}' both give the column '${columns[twice]}': name one in columns`,
    );
  const options = { period_type: args.period_type, continuity: args.continuity };
  return runInside(aggregationGraph(opened, columns, args, 'chap-csv', options), opened, context);
}

async function aggregateToDhis2Json(args: Args, context: ProcessContext): Promise<unknown> {
  const process = 'aggregate_to_dhis2_json';
  const datasets = args.datasets as string[];
  const elements = args.data_elements as Record<string, string>;
  checkKeys(process, 'data_elements', elements, datasets);
  const unmapped = datasets.find((d) => elements[d] === undefined);
  if (unmapped) throw invalidArgument(process, 'data_elements', `dataset '${unmapped}' has no data element`);
  const opened = await openDatasets(process, args, context);
  // Bands are named after their datasets, which `data_elements` maps.
  const options = { period_type: args.period_type, data_elements: elements };
  return runInside(aggregationGraph(opened, datasets, args, 'dhis2-json', options), opened, context);
}

export const exportWorkflows: ProcessDefinition[] = [
  { id: 'aggregate_to_chap_csv', run: aggregateToChapCsv },
  { id: 'aggregate_to_dhis2_json', run: aggregateToDhis2Json },
];
