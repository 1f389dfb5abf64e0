/**
 * The default picture options of a graph's PNG results: the display (colour map and range) of the DataSource of
 * the one dataset the graph loads, as its tiles and thumbnails are coloured. A graph that loads several datasets,
 * or none, has no default. `save_result`'s own options come first.
 */
import { dataSourceKind, type DataSource } from '../../resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../resources/dataset/schema.ts';
import { isSafeName } from '../../stores/layout.ts';
import type { ResourceReader } from '../jobs/pinned.ts';
import { collectReferences } from '../jobs/references.ts';
import { builtInRegistry } from '../registry.ts';

export type FormatDefaults = Record<string, Record<string, unknown>>;

/** Per output format (lower case), the options a graph's results take unless `save_result` says otherwise. */
export async function formatDefaults(
  processGraph: unknown,
  reader: ResourceReader,
  namespace: string,
): Promise<FormatDefaults> {
  const registry = builtInRegistry();
  const { collections } = collectReferences(processGraph, (id) => registry.get(id) !== undefined);
  if (collections.size !== 1) return {};
  const [id] = collections;
  if (!isSafeName(id!)) return {};
  const dataset = await reader.get<Dataset>(datasetKind, id!, namespace);
  const source = dataset && (await reader.get<DataSource>(dataSourceKind, dataset.spec.source, namespace));
  const display = source?.spec.display;
  if (!display?.colormap && !display?.range) return {};
  return {
    png: { ...(display.colormap && { colormap: display.colormap }), ...(display.range && { range: display.range }) },
  };
}

/** `options` over the format's defaults. */
export const withDefaults = (defaults: FormatDefaults, format: string, options: Record<string, unknown>) => ({
  ...defaults[format.toLowerCase()],
  ...options,
});
