/**
 * The inputs of a batch job's run as its provenance records them, from the resources pinned for its attempt: each
 * dataset at the version it reads (the job's `status.inputs`), with a digest of that version's store, and each
 * feature collection with the digest of its stored file.
 *
 * A store digest hashes the version id, the Icechunk snapshot id and the store's root metadata document, not every
 * chunk: a version's files are written once under a path of their own and never changed (an Icechunk snapshot is
 * immutable), so the version and snapshot ids name the bytes, and the metadata digest tells a store replaced under
 * the same name. Hashing every chunk would cost a full read of the store per run.
 */
import type { KubeObject } from '../cluster/objects.ts';
import { datasetKind, type Dataset } from '../resources/dataset/schema.ts';
import { resolveVersion, ZARR_FORMATS } from '../resources/dataset/served-version.ts';
import { featureCollectionKind, type FeatureCollection } from '../resources/feature-collection/schema.ts';
import type { JobInput } from '../resources/processing-job/schema.ts';
import { storeFile } from '../stores/layout.ts';
import { openVersionStore } from '../stores/version-store.ts';
import { fileSha256, sha256Hex } from './digest.ts';
import type { DatasetInput, FeatureCollectionInput } from './manifest.ts';

const ROOT_METADATA_KEYS = ['zarr.json', '.zmetadata'];

const isKind = (o: KubeObject, kind: { apiVersion: string; kind: string }) =>
  o.apiVersion === kind.apiVersion && o.kind === kind.kind;

async function datasetInput(dataset: Dataset, name: string, storageRoot: string): Promise<DatasetInput | undefined> {
  const { version } = resolveVersion(dataset, { formats: ZARR_FORMATS, version: name });
  if (!version) return undefined;
  const store = await openVersionStore(storeFile(storageRoot, version.path), version.snapshot);
  let metadata: Uint8Array | undefined;
  for (const key of ROOT_METADATA_KEYS) metadata ??= await store.get(key);
  const identity = Buffer.from(`${version.id}\n${version.snapshot ?? ''}\n`);
  return {
    id: dataset.metadata.name,
    version: version.id,
    ...(version.snapshot !== undefined && { snapshot: version.snapshot }),
    format: version.format,
    createdAt: version.createdAt,
    storeDigest: sha256Hex(Buffer.concat([identity, metadata ?? new Uint8Array()])),
  };
}

async function featureCollectionInput(
  collection: FeatureCollection,
  storageRoot: string,
): Promise<FeatureCollectionInput> {
  const { path, version } = collection.status ?? {};
  return {
    id: collection.metadata.name,
    release: version ?? null,
    sha256: path ? await fileSha256(storeFile(storageRoot, path)).catch(() => null) : null,
  };
}

/**
 * `read` is what the attempt reads (the job's `status.inputs`, recorded when it started), so a version published
 * or named in `load_collection` does not make the manifest name another than the one read.
 */
export async function runInputs(resources: readonly KubeObject[], read: readonly JobInput[], storageRoot: string) {
  const datasetNamed = (name: string) =>
    resources.find((o) => isKind(o, datasetKind) && o.metadata.name === name) as Dataset | undefined;
  const datasets = await Promise.all(
    read.map(({ dataset, version }) => {
      const resource = datasetNamed(dataset);
      return resource && datasetInput(resource, version, storageRoot);
    }),
  );
  const featureCollections = await Promise.all(
    resources
      .filter((o) => isKind(o, featureCollectionKind))
      .map((o) => featureCollectionInput(o as FeatureCollection, storageRoot)),
  );
  return { datasets: datasets.filter((d) => d !== undefined), featureCollections };
}
