/**
 * The default picture options of a graph's PNG results: the display (colour map and range) of the DataSource of
 * the one dataset the graph loads, as its tiles and thumbnails are coloured. A graph that loads several datasets,
 * or none, has no default. `save_result`'s own options come first.
 */
import { dataSourceKind, type DataSource } from '../../resources/data-source/schema.ts';
import { datasetKind, type Dataset } from '../../resources/dataset/schema.ts';
import { isSafeName } from '../../stores/layout.ts';
import type { ResourceReader } from './pinned.ts';
import { collectReferences } from './references.ts';
import { builtInRegistry } from '../registry.ts';

/** The options a result in `format` is written with: `save_result`'s, over the graph's defaults for the format. */
export type OptionsResolver = (format: string, given: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** `save_result`'s options as they are. */
export const givenOptions: OptionsResolver = async (_format, given) => given;

/** A PNG's colour map and range from the display of the one dataset the graph loads; none otherwise. */
async function pictureDefaults(
  processGraph: unknown,
  reader: ResourceReader,
  namespace: string,
): Promise<Record<string, unknown>> {
  const registry = builtInRegistry();
  const { collections } = collectReferences(processGraph, (id) => registry.get(id) !== undefined);
  if (collections.size !== 1) return {};
  const [id] = collections;
  if (!isSafeName(id!)) return {};
  const dataset = await reader.get<Dataset>(datasetKind, id!, namespace);
  const source = dataset && (await reader.get<DataSource>(dataSourceKind, dataset.spec.source, namespace));
  const display = source?.spec.display;
  return { ...(display?.colormap && { colormap: display.colormap }), ...(display?.range && { range: display.range }) };
}

/**
 * The options resolver of a graph's results. Only PNG has defaults; they are read when a PNG is written, once per
 * run, so a run that writes another format reads nothing more.
 */
export function formatOptions(processGraph: unknown, reader: ResourceReader, namespace: string): OptionsResolver {
  let picture: Promise<Record<string, unknown>> | undefined;
  return async (format, given) => {
    if (format.toLowerCase() !== 'png') return given;
    picture ??= pictureDefaults(processGraph, reader, namespace);
    return { ...(await picture), ...given };
  };
}
