import { stat } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { datasetKind, type Dataset } from '../../../core/resources/dataset/schema.ts';
import { storeFile } from '../../../core/stores/layout.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { rasterCollection } from './raster-collection.ts';
import type { CollectionLinks, StacCollection } from './stac.ts';
import { readStoreGrid } from './store-grid.ts';

export interface PublishedCollection {
  id: string;
  title: string;
}

/**
 * One kind of catalogue collection (raster datasets here; feature collections plug in beside it). The STAC
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

export function collectionKinds(app: FastifyInstance): CollectionKind[] {
  return [rasterCollections(app)];
}

/** Every published collection of every kind. */
export async function publishedCollections(kinds: CollectionKind[]): Promise<PublishedCollection[]> {
  return (await Promise.all(kinds.map((k) => k.published()))).flat();
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
