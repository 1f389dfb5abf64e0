/** The provenance manifest of a batch job's run, built by its worker once every result is written. */
import { join } from 'node:path';
import type { KubeObject } from '../cluster/objects.ts';
import type { SavedResult } from '../processing/jobs/sink.ts';
import type { JobInput } from '../resources/processing-job/schema.ts';
import { STRATUS_VERSION } from '../version.ts';
import { canonicalSha256, sorted } from './canonical-json.ts';
import { directorySha256, fileSha256, sha256Multihash } from './digest.ts';
import { runInputs } from './inputs.ts';
import type { OutputAsset, ProcessingManifest } from './manifest.ts';

export interface ProcessingRun {
  job: string;
  attempt: string;
  rerunOf?: string;
  process: Record<string, unknown>;
  /** The resources the attempt read, rerun pins applied. */
  resources: readonly KubeObject[];
  /** The dataset versions the attempt reads (the job's `status.inputs`), not those served when it ends. */
  inputs: readonly JobInput[];
  storageRoot: string;
  /** The directory the results were written to. */
  dir: string;
  saved: readonly SavedResult[];
  startedAt: string;
  finishedAt: string;
}

async function outputAsset(dir: string, { file, format, options }: SavedResult): Promise<OutputAsset> {
  const path = join(dir, file.name);
  const digest = file.directory ? await directorySha256(path) : await fileSha256(path);
  return {
    name: file.name,
    mediaType: file.mediaType,
    size: file.size ?? 0,
    checksum: sha256Multihash(digest),
    ...(file.directory && { directory: true }),
    format,
    options,
  };
}

export async function processingManifest(run: ProcessingRun): Promise<ProcessingManifest> {
  const { process_graph: graph, ...parameters } = run.process;
  return {
    type: 'processing',
    job: run.job,
    attempt: run.attempt,
    ...(run.rerunOf !== undefined && { rerunOf: run.rerunOf }),
    engine: { name: 'stratus', version: STRATUS_VERSION },
    processGraph: { sha256: canonicalSha256(graph ?? null), graph: sorted(graph ?? null) },
    parameters,
    inputs: await runInputs(run.resources, run.inputs, run.storageRoot),
    outputs: await Promise.all(run.saved.map((saved) => outputAsset(run.dir, saved))),
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
  };
}
