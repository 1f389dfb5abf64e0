/**
 * A run's provenance manifest as STAC: the Item of its results with the Processing extension (the software and
 * its version, the lineage, the process graph as the expression, when it ran) and the File extension (each
 * asset's `file:checksum` and `file:size`), plus the manifest's inputs and times under `stratus:` fields.
 */
import type { DeliveryManifest, ProcessingManifest } from './manifest.ts';

export const PROCESSING_EXTENSION = 'https://stac-extensions.github.io/processing/v1.2.0/schema.json';
export const FILE_EXTENSION = 'https://stac-extensions.github.io/file/v2.1.0/schema.json';

/** The link relation of a results document to its provenance Item, and of the Item to the manifest it shows. */
export const PROVENANCE_REL = 'provenance';

interface StacItem {
  stac_extensions: string[];
  properties: Record<string, unknown>;
  assets: Record<string, Record<string, unknown>>;
  links: Record<string, unknown>[];
}

function lineage(manifest: ProcessingManifest): string {
  const read = [
    ...manifest.inputs.datasets.map((d) => `dataset ${d.id} at version ${d.version}`),
    ...manifest.inputs.featureCollections.map(
      (f) => `feature collection ${f.id}${f.release ? ` release ${f.release.authority} ${f.release.value}` : ''}`,
    ),
  ];
  return (
    `openEO process graph sha256:${manifest.processGraph.sha256} run by batch job ${manifest.job}` +
    (manifest.rerunOf ? ` (a rerun of ${manifest.rerunOf})` : '') +
    (read.length > 0 ? ` over ${read.join(', ')}` : '') +
    '.'
  );
}

/** `item` (a results Item) as the provenance Item of `manifest`; `links` are added to the Item's own. */
export function provenanceItem<T extends StacItem>(
  item: T,
  manifest: ProcessingManifest,
  links: Record<string, unknown>[],
): T {
  const outputs = new Map(manifest.outputs.map((o) => [o.name, o]));
  return {
    ...item,
    stac_extensions: [...item.stac_extensions, PROCESSING_EXTENSION, FILE_EXTENSION],
    properties: {
      ...item.properties,
      'processing:software': { stratus: manifest.engine.version },
      'processing:version': manifest.engine.version,
      'processing:lineage': lineage(manifest),
      'processing:expression': { format: 'openeo', expression: manifest.processGraph.graph },
      'processing:datetime': manifest.finishedAt,
      'stratus:run': {
        job: manifest.job,
        attempt: manifest.attempt,
        ...(manifest.rerunOf && { rerun_of: manifest.rerunOf }),
        started: manifest.startedAt,
        finished: manifest.finishedAt,
      },
      'stratus:process_graph_sha256': manifest.processGraph.sha256,
      'stratus:parameters': manifest.parameters,
      'stratus:inputs': manifest.inputs,
    },
    assets: Object.fromEntries(
      Object.entries(item.assets).map(([name, asset]) => {
        const output = outputs.get(name);
        return [
          name,
          output
            ? {
                ...asset,
                'file:size': output.size,
                'file:checksum': output.checksum,
                'stratus:format': output.format,
                'stratus:options': output.options,
              }
            : asset,
        ];
      }),
    ),
    links: [...item.links.filter((l) => l.rel !== 'self'), ...links],
  };
}

/**
 * A delivery's manifest as a STAC Item without geometry: its one asset is the payload it delivered (with its
 * checksum), its Processing fields say what sent it where, and `stratus:delivery` lists every chunk's digest and
 * outcome with the target's import summary.
 */
export function deliveryItem(manifest: DeliveryManifest, payloadHref: string, links: Record<string, unknown>[]) {
  const sent = manifest.chunks.reduce((n, c) => n + c.values, 0);
  return {
    stac_version: '1.0.0',
    stac_extensions: [PROCESSING_EXTENSION, FILE_EXTENSION],
    type: 'Feature',
    id: manifest.delivery,
    bbox: null,
    geometry: null,
    properties: {
      datetime: manifest.finishedAt,
      start_datetime: manifest.startedAt,
      end_datetime: manifest.finishedAt,
      'processing:software': { stratus: manifest.engine.version },
      'processing:version': manifest.engine.version,
      'processing:lineage':
        `${manifest.dryRun ? 'Dry run of the delivery' : 'Delivery'} of ` +
        (manifest.table
          ? `the ${manifest.table.statistic} values of analytics table ${manifest.table.name} (version ${manifest.table.version}) `
          : `the payload of batch job ${manifest.job} `) +
        `(${sent} values in ${manifest.chunks.length} chunks) to the ${manifest.target.type} target ` +
        `${manifest.target.url} by export ${manifest.export}.`,
      'processing:datetime': manifest.finishedAt,
      'stratus:delivery': {
        export: manifest.export,
        ...(manifest.job !== undefined && { job: manifest.job }),
        ...(manifest.table && { table: manifest.table }),
        dry_run: manifest.dryRun,
        target: manifest.target,
        chunks: manifest.chunks,
        import_summary: manifest.importSummary,
      },
    },
    assets: {
      payload: {
        href: payloadHref,
        type: manifest.table ? 'application/vnd.apache.parquet' : 'application/json',
        title: manifest.table ? 'The table version whose values were delivered' : 'The payload delivered',
        roles: ['data'],
        'file:size': manifest.payload.size,
        'file:checksum': manifest.payload.checksum,
      },
    },
    links,
  };
}
