/**
 * Where a batch job's `save_result` calls go: files in the attempt's staging directory, one per call, named after
 * the format (`result.tif`, `result.zarr/`; a second result of a format gets `-2`, and so on).
 */
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { ResultFile } from '../../resources/processing-job/schema.ts';
import { givenOptions, type OptionsResolver } from './display.ts';
import { OUTPUT_FORMATS, outputFormat } from '../results/outputs.ts';
import type { WriterShare } from '../results/zarr.ts';
import type { ResultSink } from '../services.ts';

export interface SavedResult {
  file: ResultFile;
  value: unknown;
  /** The format's name and the options it was written with, for the run's provenance. */
  format: string;
  options: Record<string, unknown>;
}

/** Bytes of the files under a directory. */
export async function sizeOf(path: string): Promise<number> {
  const entries = await readdir(path, { recursive: true, withFileTypes: true });
  const sizes = await Promise.all(
    entries.filter((e) => e.isFile()).map(async (e) => (await stat(join(e.parentPath, e.name))).size),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

/**
 * With `share`, this sink is one of several writing `dir` at once (the parts of a split batch job): a directory
 * format writes its share, any other format is written by the first part alone. `warn` takes the writers'
 * warnings (the job's log).
 */
export function directorySink(
  dir: string,
  maxCells: number,
  optionsFor: OptionsResolver = givenOptions,
  share?: WriterShare,
  warn?: (message: string) => void,
): ResultSink & { readonly saved: SavedResult[] } {
  const saved: SavedResult[] = [];
  const nameFor = (fileName: string) => {
    const taken = (name: string) => saved.some((s) => s.file.name === name);
    if (!taken(fileName)) return fileName;
    const ext = extname(fileName);
    const stem = fileName.slice(0, fileName.length - ext.length);
    let n = 2;
    while (taken(`${stem}-${n}${ext}`)) n++;
    return `${stem}-${n}${ext}`;
  };
  return {
    saved,
    formats: () => OUTPUT_FORMATS.map((f) => f.name),
    async save(value, name, given, signal) {
      const format = outputFormat(name)!;
      const options = await optionsFor(format.name, given);
      const fileName = nameFor(format.fileName);
      const path = join(dir, fileName);
      let file: ResultFile;
      if (format.writeDirectory) {
        await mkdir(path, { recursive: true });
        await format.writeDirectory(value, path, maxCells, signal, options, share);
        file = { name: fileName, mediaType: format.mediaType, size: await sizeOf(path), directory: true };
      } else if (share && share.index > 0) {
        file = { name: fileName, mediaType: format.mediaType };
      } else {
        const body = await format.write(value, maxCells, signal, options, warn);
        await writeFile(path, body);
        const size = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
        file = { name: fileName, mediaType: format.mediaType, size };
      }
      saved.push({ file, value, format: format.name, options });
      return true;
    },
  };
}
