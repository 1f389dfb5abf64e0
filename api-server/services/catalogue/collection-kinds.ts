import { stat } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { storeFile } from '../../../core/stores/layout.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { storedColumns } from '../../../core/features/columns.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { isPublished as isPublishedCollection, isStored } from '../../records/feature-collection.ts';
import { featureStacCollection } from './feature-collection.ts';
import { rasterCollection } from './raster-collection.ts';
import type { CollectionLinks, StacCollection } from './stac.ts';
import { readStoreGrid } from './store-grid.ts';

export interface PublishedCollection {
  id: string;
  title: string;
}

/**
 * One kind of catalogue collection (raster datasets and feature collections). The STAC
 * catalogue and openEO's `/collections` ask every kind, so a new kind is one more entry in `collectionKinds`.
 */
export interface CollectionKind {
  /** The published collections of this kind, in a stable order. */
  published(): Promise<PublishedCollection[]>;
  /** The collection with this id, or undefined when this kind publishes none by that id. */
  collection(id: string, links: CollectionLinks): Promise<StacCollection | undefined>;
}

const isPublished = (dataset: Dataset) =>
  dataset.spec.itemType !== 'feature' && dataset.status?.publication?.status === 'published';

async function fileExists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

/** Published raster datasets, each a data cube. */
function rasterCollections(app: FastifyInstance): CollectionKind {
  const { cluster, namespace, config, storageRoot, icechunk } = app.stratus;
  return {
    async published() {
      const { items } = await cluster.list<Dataset>(datasetKind, { namespace });
      return items
        .filter(isPublished)
        .map((d) => ({ id: d.metadata.name, title: d.spec.datasetName }))
        .sort((a, b) => a.id.localeCompare(b.id));
    },
    async collection(id, links) {
      // openEO takes any string as a collection id; one that no resource can be named is simply not found.
      if (!resourceIdSchema.safeParse(id).success) return undefined;
      const dataset = await cluster.get<Dataset>(datasetKind, id, namespace);
      if (!dataset || !isPublished(dataset)) return undefined;
      const thumbnail = dataset.status?.thumbnail;
      return rasterCollection({
        dataset,
        grid: await readStoreGrid(dataset, storageRoot, icechunk),
        thumbnail: thumbnail !== undefined && (await fileExists(storeFile(storageRoot, thumbnail))),
        host: config.instance.name,
        instanceBbox: config.instance.bbox,
        links,
      });
    },
  };
}

/** Stored and published feature collections, each a table with its GeoParquet file. */
function featureCollections(app: FastifyInstance): CollectionKind {
  const { cluster, namespace, config, storageRoot } = app.stratus;
  const listed = (collection: FeatureCollection) => isStored(collection) && isPublishedCollection(collection);
  return {
    async published() {
      const { items } = await cluster.list<FeatureCollection>(featureCollectionKind, { namespace });
      return items
        .filter(listed)
        .map((c) => ({ id: c.metadata.name, title: c.spec.name }))
        .sort((a, b) => a.id.localeCompare(b.id));
    },
    async collection(id, links) {
      if (!resourceIdSchema.safeParse(id).success) return undefined;
      const collection = await cluster.get<FeatureCollection>(featureCollectionKind, id, namespace);
      if (!collection || !isStored(collection) || !isPublishedCollection(collection)) return undefined;
      return featureStacCollection({
        collection,
        columns: await storedColumns(storeFile(storageRoot, collection.status.path)),
        host: config.instance.name,
        links,
      });
    },
  };
}

export function collectionKinds(app: FastifyInstance): CollectionKind[] {
  return [rasterCollections(app), featureCollections(app)];
}

/** Every published collection of every kind. */
export async function publishedCollections(kinds: CollectionKind[]): Promise<PublishedCollection[]> {
  return (await Promise.all(kinds.map((k) => k.published()))).flat().sort((a, b) => a.id.localeCompare(b.id));
}

/** The first kind that publishes a collection by this id answers. */
export async function findCollection(
  kinds: CollectionKind[],
  id: string,
  links: CollectionLinks,
): Promise<StacCollection | undefined> {
  for (const kind of kinds) {
    const found = await kind.collection(id, links);
    if (found) return found;
  }
  return undefined;
}
