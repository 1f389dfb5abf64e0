/**
 * The inputs of a climate index: single-band cubes, each read in the working unit of its quantity (`units.ts`),
 * brought onto the grid of the first by dimension labels (positions another input lacks are nodata), and the
 * index's result named after the index, in its own units.
 */
import { alignTo } from '../cube/align.ts';
import { DataCube, withoutUnits, type ChunkArray, type CubeMetadata } from '../cube/cube.ts';
import { MapSource } from '../cube/sources/map.ts';
import { relabel } from '../processes/cube/helpers.ts';
import { bandUnits, convertInPlace, type Quantity } from '../units.ts';

export interface IndexInput {
  cube: DataCube;
  /** The process parameter it was passed as, for messages. */
  parameter: string;
  quantity: Quantity;
}

export interface AlignedInputs {
  /** The first input: its grid is the result's. */
  grid: DataCube;
  /** Every input on that grid, in input order. */
  cubes: DataCube[];
  /** Turns a chunk of input `k` into its working unit, in place. */
  convert: ((chunk: ChunkArray) => void)[];
}

/** The inputs on the first one's grid, with their unit conversions; 400 when one lacks units or a single band. */
export function alignedInputs(process: string, inputs: readonly IndexInput[]): AlignedInputs {
  const grid = inputs[0]!.cube;
  const gridBand = bandUnits(grid, inputs[0]!.quantity, process, inputs[0]!.parameter).band;
  const cubes: DataCube[] = [];
  const convert: ((chunk: ChunkArray) => void)[] = [];
  for (const { cube, parameter, quantity } of inputs) {
    const { conversion } = bandUnits(cube, quantity, process, parameter);
    // The band takes the first input's label, so that alignment matches every other dimension by its labels.
    const onGrid =
      cube === grid
        ? grid
        : alignTo(
            relabel(
              cube,
              cube.dimensions.map((d) => (d.type === 'bands' ? { ...d, labels: [gridBand] } : d)),
            ),
            grid.dimensions,
            grid.metadata.chunkShape,
          );
    cubes.push(onGrid);
    convert.push((chunk) => convertInPlace(chunk, conversion));
  }
  return { grid, cubes, convert };
}

/** `metadata` with its single band named `band`, holding values in `units`. */
export function resultMetadata(metadata: CubeMetadata, band: string, units: string): CubeMetadata {
  return {
    ...withoutUnits(metadata),
    cellType: 'number',
    dimensions: metadata.dimensions.map((d) => (d.type === 'bands' ? { ...d, labels: [band] } : d)),
    units: { [band]: units },
  };
}

/**
 * A cube whose every value is `formula` of the inputs' values at the same position (in their working units), as
 * band `band` in `units`: computed chunk by chunk, one chunk of each input at a time.
 */
export function pointwiseIndex(
  process: string,
  inputs: readonly IndexInput[],
  band: string,
  units: string,
  formula: (values: readonly number[]) => number,
): DataCube {
  const { grid, cubes, convert } = alignedInputs(process, inputs);
  const values: number[] = Array.from(inputs, () => NaN);
  return new DataCube(
    new MapSource(cubes, resultMetadata(grid.metadata, band, units), (chunks, out) => {
      chunks.forEach((chunk, k) => convert[k]!(chunk));
      for (let i = 0; i < out.length; i++) {
        for (let k = 0; k < chunks.length; k++) values[k] = chunks[k]![i]!;
        out[i] = formula(values);
      }
    }),
  );
}
