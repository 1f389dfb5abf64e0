import { asyncBufferFromFile, parquetMetadataAsync } from 'hyparquet';

/** A top-level column of a stored GeoParquet file, as a catalogue describes it. */
export interface StoredColumn {
  name: string;
  /** The column's type: the logical type where Parquet has one, else the physical one (`struct` for groups). */
  type: string;
}

interface SchemaElement {
  name: string;
  type?: string;
  num_children?: number;
  logical_type?: { type: string };
  converted_type?: string;
}

function typeOf(element: SchemaElement): string {
  if (element.num_children) return 'struct';
  const logical = element.logical_type?.type ?? element.converted_type;
  if (logical === 'STRING' || logical === 'UTF8') return 'string';
  if (logical) return logical.toLowerCase();
  return (element.type ?? 'unknown').toLowerCase();
}

/** The top-level columns of the Parquet file at `path`, read from its footer only. */
export async function storedColumns(path: string): Promise<StoredColumn[]> {
  const metadata = await parquetMetadataAsync(await asyncBufferFromFile(path));
  const schema = metadata.schema as SchemaElement[];
  const columns: StoredColumn[] = [];
  // The schema is the tree flattened depth first: skip each group's descendants to stay at the top level.
  let index = 1;
  const skip = (at: number): number => {
    let next = at + 1;
    for (let child = 0; child < (schema[at]!.num_children ?? 0); child++) next = skip(next);
    return next;
  };
  while (index < schema.length) {
    columns.push({ name: schema[index]!.name, type: typeOf(schema[index]!) });
    index = skip(index);
  }
  return columns;
}
