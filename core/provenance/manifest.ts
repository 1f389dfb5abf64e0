/**
 * The provenance manifest of a batch job's run and of a delivery (docs/processing.md#provenance): what it read, at
 * which versions and with which digests, what it ran, with which engine, and the digest of every file it wrote. A
 * run writes it beside its results; the API serves it as a STAC Item (`stac-item.ts`).
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { artifactVersionSchema, dateTime } from '../resources/common.ts';
import { chunkOutcome, deliveryReportSchema, importCountSchema } from '../resources/delivery/schema.ts';
import { storeFile } from '../stores/layout.ts';

/** The manifest's file name in a batch job's run directory. */
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

export const deliveryChunkDigestSchema = z.object({
  index: z.number().int(),
  strategy: z.enum(['CREATE_AND_UPDATE', 'DELETE']),
  values: z.number().int().min(0),
  sha256: sha256.describe('SHA-256 of the canonical JSON of the data values the chunk sends.'),
  outcome: chunkOutcome,
  importCount: importCountSchema.optional(),
});

export const deliveryManifestSchema = z.object({
  type: z.literal('delivery'),
  delivery: z.string(),
  export: z.string(),
  job: z.string().optional().describe('The batch job whose payload was delivered; absent for a table source.'),
  table: z
    .object({
      name: z.string(),
      version: z.string().describe('The version of the table whose values were delivered.'),
      statistic: z.string(),
      periodType: z.string(),
      periods: z.array(z.string()),
      orgUnits: z.array(z.string()).optional(),
    })
    .optional()
    .describe('The analytics table whose values were delivered; absent for a job source.'),
  dryRun: z.boolean(),
  engine: engineSchema,
  payload: z.object({
    path: z.string().describe('Store path of the payload.'),
    checksum: multihash.describe('sha2-256 multihash of the payload as the delivery read it.'),
    size: z.number().int().min(0),
  }),
  target: z.object({ type: z.string(), url: z.string() }),
  chunks: z.array(deliveryChunkDigestSchema),
  importSummary: deliveryReportSchema.describe("The target's import summary over every chunk."),
  startedAt: dateTime,
  finishedAt: dateTime,
});

export type DatasetInput = z.infer<typeof datasetInputSchema>;
export type FeatureCollectionInput = z.infer<typeof featureCollectionInputSchema>;
export type OutputAsset = z.infer<typeof outputAssetSchema>;
export type ProcessingManifest = z.infer<typeof processingManifestSchema>;
export type DeliveryManifest = z.infer<typeof deliveryManifestSchema>;

/** The manifest at `path` under the store, or undefined when none was written. */
async function readManifest<T>(schema: z.ZodType<T>, storageRoot: string, path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(storeFile(storageRoot, path), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return schema.parse(JSON.parse(text));
}

/** The manifest of the run whose results are at `runPath` under the store. */
export const readProcessingManifest = (storageRoot: string, runPath: string) =>
  readManifest(processingManifestSchema, storageRoot, `${runPath}/${PROVENANCE_FILE}`);

/** The manifest of a delivery, at `deliveryProvenancePath` under the store. */
export const readDeliveryManifest = (storageRoot: string, path: string) =>
  readManifest(deliveryManifestSchema, storageRoot, path);
