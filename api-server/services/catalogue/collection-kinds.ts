import { stat } from 'node:fs/promises';
import type { KindRef, KubeObject } from '../../../core/cluster/objects.ts';
import { storedColumns } from '../../../core/features/columns.ts';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../../core/resources/feature-collection/schema.ts';
import { storeFile } from '../../../core/stores/layout.ts';
import type { StratusContext } from '../../plugins/app/context.ts';
import {
  isPublished as isPublishedCollection,
  isStored,
  type StoredFeatureCollection,
} from '../../records/feature-collection.ts';
import { sortForPaging, type PageOrder } from '../../pagination.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { derived } from '../resources/derived.ts';
import type { ResourceCaches } from '../resources/resource-caches.ts';
import type { IcechunkSnapshots } from '../icechunk/icechunk-snapshots.ts';
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
  /** The published collections of this kind, by id. */
  published(): Promise<readonly PublishedCollection[]>;
  /** The collection with this id, or undefined when this kind publishes none by that id. */
  collection(id: string, links: CollectionLinks): Promise<StacCollection | undefined>;
}

/**
 * What the collection kinds read: resources (lists from the informer caches), configuration, and the stores
 * (Icechunk ones through snapshots).
 */
export type CatalogueContext = Pick<StratusContext, 'cluster' | 'namespace' | 'config' | 'storageRoot'> & {
  icechunk: IcechunkSnapshots;
  caches: ResourceCaches;
};

/** A kind of collection whose collections are resources of one kind, each published while `listed` says so. */
interface ResourceCollections<T extends KubeObject, Listed extends T> {
  kind: KindRef;
  listed(resource: T): resource is Listed;
  title(resource: Listed): string;
  collection(resource: Listed, links: CollectionLinks): Promise<StacCollection>;
}

function resourceCollections<T extends KubeObject, Listed extends T>(
  { cluster, namespace, caches }: CatalogueContext,
  of: ResourceCollections<T, Listed>,
): CollectionKind {
  const resources = caches.of<T>(of.kind);
  // In the cache's order, by name: the collection's id.
  const published = (items: readonly T[]) =>
    items.filter((r): r is Listed => of.listed(r)).map((r) => ({ id: r.metadata.name, title: of.title(r) }));
  return {
    async published() {
      return derived(await resources.list(), published);
    },
    async collection(id, links) {
      // openEO takes any string as a collection id; one that no resource can be named is simply not found.
      if (!resourceIdSchema.safeParse(id).success) return undefined;
      const resource = await cluster.get<T>(of.kind, id, namespace);
      return resource && of.listed(resource) ? of.collection(resource, links) : undefined;
    },
  };
}

async function fileExists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

/** Published raster datasets, each a data cube. */
function rasterCollections(context: CatalogueContext): CollectionKind {
  const { config, storageRoot, icechunk } = context;
  return resourceCollections(context, {
    kind: datasetKind,
    listed: (dataset: Dataset): dataset is Dataset =>
      dataset.spec.itemType !== 'feature' && dataset.status?.publication?.status === 'published',
    title: (dataset) => dataset.spec.datasetName,
    collection: async (dataset, links) => {
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
  });
}

/** Stored and published feature collections, each a table with its GeoParquet file. */
function featureCollections(context: CatalogueContext): CollectionKind {
  const { config, storageRoot } = context;
  return resourceCollections(context, {
    kind: featureCollectionKind,
    listed: (collection: FeatureCollection): collection is StoredFeatureCollection =>
      isStored(collection) && isPublishedCollection(collection),
    title: (collection) => collection.spec.name,
    collection: async (collection, links) =>
      featureStacCollection({
        collection,
        columns: await storedColumns(storeFile(storageRoot, collection.status.path)),
        host: config.instance.name,
        links,
      }),
  });
}

/** Every kind of collection the catalogue publishes; the STAC catalogue and openEO's `/collections` ask each. */
export function collectionKinds(context: CatalogueContext): CollectionKind[] {
  return [rasterCollections(context), featureCollections(context)];
}

/** The last merge of each set of kinds, and the lists it merged (each the same array until its cache changes). */
const merges = new WeakMap<
  CollectionKind[],
  { parts: (readonly PublishedCollection[])[]; all: readonly PublishedCollection[] }
>();

/**
 * Every published collection of every kind, by id (in code-unit order, which pagination relies on); merged again
 * only when a kind's list changed.
 */
export async function publishedCollections(kinds: CollectionKind[]): Promise<readonly PublishedCollection[]> {
  const parts = await Promise.all(kinds.map((k) => k.published()));
  const last = merges.get(kinds);
  if (last && parts.every((part, i) => part === last.parts[i])) return last.all;
  const all = sortForPaging(parts.flat(), byId);
  merges.set(kinds, { parts, all });
  return all;
}

/** Collections in the order of their ids. */
export const byId: PageOrder<PublishedCollection> = { key: (c) => [c.id] };

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
