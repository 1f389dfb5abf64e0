/** Processes that change a cube's dimensions or labels without computing values. */
import { DataCube } from '../../cube/cube.ts';
import type { Dimension, DimensionType } from '../../cube/dimension.ts';
import { memoryCube } from '../../cube/memory.ts';
import { IndexMapSource } from '../../cube/sources/index-map.ts';
import { ProcessingError } from '../../errors.ts';
import type { Args, ProcessDefinition } from '../../process.ts';
import type { Label } from '../../values/labeled-array.ts';
import { axisOf, relabel } from './helpers.ts';

function dimensionExists(name: string): ProcessingError {
  return new ProcessingError('DimensionExists', `A dimension with the specified name '${name}' exists already.`);
}

function addDimension({ data, name, label, type }: Args): DataCube {
  const cube = data as DataCube;
  if (cube.dimension(name as string)) throw dimensionExists(name as string);
  const dimension: Dimension = { name: name as string, type: type as DimensionType, labels: [label as Label] };
  if (type === 'spatial') {
    const axis = (['x', 'y', 'z'] as const).find(
      (a) => !cube.dimensions.some((d) => d.type === 'spatial' && d.axis === a),
    );
    if (!axis) throw dimensionExists(name as string);
    dimension.axis = axis;
  }
  if (cube.dimensions.length === 0) return memoryCube({ dimensions: [dimension], data: new Float64Array([NaN]) });
  // The new dimension comes first, as the test vectors expect.
  return new DataCube(
    new IndexMapSource(
      cube,
      { ...cube.metadata, dimensions: [dimension, ...cube.dimensions], chunkShape: [1, ...cube.metadata.chunkShape] },
      [{ parent: null, indices: null }, ...cube.dimensions.map((_, i) => ({ parent: i, indices: null }))],
    ),
  );
}

function dropDimension({ data, name }: Args): DataCube {
  const cube = data as DataCube;
  const axis = axisOf(cube, name as string);
  if (cube.shape[axis] !== 1)
    throw new ProcessingError(
      'DimensionLabelCountMismatch',
      `The number of dimension labels exceeds one, which requires a reducer (dimension '${name as string}' has ${cube.shape[axis]}).`,
    );
  const keep = cube.dimensions.flatMap((_, i) => (i === axis ? [] : [i]));
  return new DataCube(
    new IndexMapSource(
      cube,
      {
        ...cube.metadata,
        dimensions: keep.map((i) => cube.dimensions[i]!),
        chunkShape: keep.map((i) => cube.metadata.chunkShape[i]!),
      },
      keep.map((i) => ({ parent: i, indices: null })),
    ),
  );
}

function renameDimension({ data, source, target }: Args): DataCube {
  const cube = data as DataCube;
  const axis = axisOf(cube, source as string);
  if (cube.dimension(target as string)) throw dimensionExists(target as string);
  return relabel(
    cube,
    cube.dimensions.map((d, i) => (i === axis ? { ...d, name: target as string } : d)),
  );
}

function renameLabels({ data, dimension, target, source }: Args): DataCube {
  const cube = data as DataCube;
  const axis = axisOf(cube, dimension as string);
  const labels = [...cube.dimensions[axis]!.labels];
  const targets = target as Label[];
  const sources = source as Label[];
  let renamed: Label[];
  if (sources.length === 0) {
    if (!labels.every((l, i) => l === i))
      throw new ProcessingError(
        'LabelsNotEnumerated',
        'The dimension labels are not enumerated, so the source labels must be given.',
      );
    if (targets.length > labels.length)
      throw new ProcessingError('LabelMismatch', 'There are more target labels than dimension labels.');
    renamed = labels.map((l, i) => (i < targets.length ? targets[i]! : l));
  } else {
    if (sources.length !== targets.length)
      throw new ProcessingError(
        'LabelMismatch',
        'The number of labels in the parameters `source` and `target` do not match.',
      );
    const missing = sources.find((s) => !labels.includes(s));
    if (missing !== undefined)
      throw new ProcessingError('LabelNotAvailable', `A label with the specified name '${missing}' does not exist.`);
    renamed = labels.map((l) => {
      const k = sources.indexOf(l);
      return k < 0 ? l : targets[k]!;
    });
  }
  // A target that equals a label kept as it was makes two equal labels.
  const clash = renamed.find((l, i) => renamed.indexOf(l) !== i);
  if (clash !== undefined)
    throw new ProcessingError('LabelExists', `A label with the specified name '${clash}' exists already.`);
  return relabel(
    cube,
    cube.dimensions.map((d, i) => (i === axis ? { ...d, labels: renamed } : d)),
  );
}

export const dimensionProcesses: ProcessDefinition[] = [
  { id: 'add_dimension', run: addDimension },
  { id: 'drop_dimension', run: dropDimension },
  { id: 'rename_dimension', run: renameDimension },
  { id: 'rename_labels', run: renameLabels },
  {
    id: 'dimension_labels',
    run: ({ data, dimension }: Args) => {
      const cube = data as DataCube;
      return [...cube.dimensions[axisOf(cube, dimension as string)]!.labels];
    },
  },
  { id: 'create_data_cube', run: () => memoryCube({ dimensions: [], data: new Float64Array(0) }) },
];
