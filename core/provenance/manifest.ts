/**
 * The provenance manifest of a batch job's run and of a delivery (docs/processing.md#provenance): what it read, at
 * which versions and with which digests, what it ran, with which engine, and the digest of every file it wrote. A
 * run writes it beside its results; the API serves it as a STAC Item (`stac-item.ts`).
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { artifactVersionSchema, dateTime } from '../resources/common.ts';
import { storeFile } from '../stores/layout.ts';

/** The manifest's file name, in a batch job's run directory and beside a delivery's checkpoint. */
export const PROVENANCE_FILE = 'provenance.json';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const multihash = z.string().regex(/^1220[0-9a-f]{64}$/);

export const datasetInputSchema = z.object({
  id: z.string(),
  version: z.string().describe('The dataset version read (`status.versions[].id`).'),
  snapshot: z.string().optional().describe('The Icechunk snapshot of that version.'),
  format: z.string(),
  createdAt: dateTime,
  storeDigest: sha256.describe(
    'SHA-256 of the version id, the snapshot id and the root metadata document (`.zmetadata` or `zarr.json`).',
  ),
});

export const featureCollectionInputSchema = z.object({
  id: z.string(),
  release: artifactVersionSchema.nullable().describe('The release the stored features are (authority, value).'),
  sha256: sha256.nullable().describe('SHA-256 of the stored GeoParquet file; null when none is stored.'),
});

export const outputAssetSchema = z.object({
  name: z.string(),
  mediaType: z.string(),
  size: z.number().int().min(0),
  checksum: multihash.describe('sha2-256 multihash of the file (of its key listing for a directory).'),
  directory: z.boolean().optional(),
  format: z.string().optional().describe('The save_result format.'),
  options: z.record(z.string(), z.unknown()).optional().describe('The save_result format options.'),
});

const engineSchema = z.object({ name: z.literal('stratus'), version: z.string() });

export const processingManifestSchema = z.object({
  type: z.literal('processing'),
  job: z.string(),
  attempt: z.string(),
  rerunOf: z.string().optional(),
  engine: engineSchema,
  processGraph: z.object({
    sha256: sha256.describe('SHA-256 of the canonical JSON of `graph`.'),
    graph: z.unknown().describe('The process graph, members sorted by key.'),
  }),
  parameters: z.record(z.string(), z.unknown()).describe("The process's members besides its graph."),
  inputs: z.object({
    datasets: z.array(datasetInputSchema),
    featureCollections: z.array(featureCollectionInputSchema),
  }),
  outputs: z.array(outputAssetSchema),
  startedAt: dateTime,
  finishedAt: dateTime,
});

export type DatasetInput = z.infer<typeof datasetInputSchema>;
export type FeatureCollectionInput = z.infer<typeof featureCollectionInputSchema>;
export type OutputAsset = z.infer<typeof outputAssetSchema>;
export type ProcessingManifest = z.infer<typeof processingManifestSchema>;

/** The manifest of the run whose results are at `runPath` under the store, or undefined when it wrote none. */
export async function readProcessingManifest(
  storageRoot: string,
  runPath: string,
): Promise<ProcessingManifest | undefined> {
  let text: string;
  try {
    text = await readFile(storeFile(storageRoot, runPath, PROVENANCE_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return processingManifestSchema.parse(JSON.parse(text));
}
