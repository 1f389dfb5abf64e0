import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticationConfigured } from '../../../core/config/index.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { datasetIdOf } from '../../../core/resources/ingestion/run.ts';
import { ingestionKind, type Ingestion } from '../../../core/resources/ingestion/schema.ts';
import { newestFirst } from '../../pagination.ts';
import { anonymousReads } from '../../plugins/app/authentication/access.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { datasetRecord, type DatasetRecord } from '../../records/dataset.ts';
import { ingestionJob, type IngestionJob } from '../../records/ingestion-job.ts';
import { mapChoices } from '../../services/map/choices.ts';
import type { MapChoices } from '../../views/map.ts';

/** How many runs the home page lists, newest first; the rest are a link away. */
const HOME_RUNS = 5;

/** Who looks at the home page: an open instance, or signed in as someone, or not signed in. */
export type Visitor = { kind: 'open' } | { kind: 'signed-in'; username: string } | { kind: 'anonymous' };

export interface HomeOverview {
  /** The URL clients reach this instance under (`public-url.ts`), for the snippets. */
  baseUrl: string;
  visitor: Visitor;
  /** Null when the visitor may not read (`security.anonymous_read = off`, not signed in). */
  data: {
    datasets: DatasetRecord[];
    runs: (IngestionJob & { target: string })[];
    collections: MapChoices['collections'];
    /** Datasets with map tiles: the snippets' example is the first of them. */
    tiled: MapChoices['datasets'];
  } | null;
}

/** What the home page shows: read here, rendered by `landing-page.ts`, only when a browser asks for HTML. */
export async function homeOverview(app: FastifyInstance, request: FastifyRequest): Promise<HomeOverview> {
  const { cluster, config, namespace } = app.stratus;
  const { caller } = request;
  const visitor: Visitor = !authenticationConfigured(config)
    ? { kind: 'open' }
    : caller.authenticated
      ? { kind: 'signed-in', username: caller.username }
      : { kind: 'anonymous' };
  const baseUrl = publicBaseUrl(request, config.server.baseUrl);
  if (!anonymousReads(config) && !caller.authenticated) return { baseUrl, visitor, data: null };
  const [datasets, runs, choices] = await Promise.all([
    app.resourceCaches.of<Dataset>(datasetKind).list(),
    app.resourceCaches.of<Ingestion>(ingestionKind).list(newestFirst),
    mapChoices(cluster, namespace, config, caller),
  ]);
  return {
    baseUrl,
    visitor,
    data: {
      datasets: datasets
        .map((d) => datasetRecord(d, config.instance.bbox))
        .sort((a, b) => a.dataset_name.localeCompare(b.dataset_name)),
      runs: runs.slice(0, HOME_RUNS).map((run) => ({ ...ingestionJob(run), target: datasetIdOf(run) })),
      collections: choices.collections,
      tiled: choices.datasets,
    },
  };
}
