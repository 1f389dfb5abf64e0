/**
 * ISO WKB (little endian) of a geometry, as GeoParquet's WKB encoding expects: the size is computed first and the
 * bytes written once through a DataView, because encoding is most of a refresh's write time for large
 * collections. Positions of 3 coordinates are written as Z (type + 1000), of 4 as ZM (type + 3000); validation
 * guarantees one dimension per geometry.
 */
import { positionsOf, type Geometry, type Position } from './geometry.ts';

const TYPE_CODE = { Point: 1, LineString: 2, Polygon: 3, MultiPoint: 4, MultiLineString: 5, MultiPolygon: 6 } as const;
const DIMENSION_OFFSET: Record<number, number> = { 2: 0, 3: 1000, 4: 3000 };
const HEADER = 5;

export function dimensionOf(geometry: Geometry): number {
  return positionsOf(geometry)[0]?.length ?? 2;
}

function byteLength(geometry: Geometry, dims: number): number {
  const position = dims * 8;
  const line = (l: Position[]) => 4 + l.length * position;
  const polygon = (p: Position[][]) => 4 + p.reduce((sum, ring) => sum + line(ring), 0);
  switch (geometry.type) {
    case 'Point':
      return HEADER + position;
    case 'LineString':
      return HEADER + line(geometry.coordinates);
    case 'Polygon':
      return HEADER + polygon(geometry.coordinates);
    case 'MultiPoint':
      return HEADER + 4 + geometry.coordinates.length * (HEADER + position);
    case 'MultiLineString':
      return HEADER + 4 + geometry.coordinates.reduce((sum, l) => sum + HEADER + line(l), 0);
    case 'MultiPolygon':
      return HEADER + 4 + geometry.coordinates.reduce((sum, p) => sum + HEADER + polygon(p), 0);
  }
}

class WkbWriter {
  readonly bytes: Uint8Array;
  readonly dims: number;
  readonly view: DataView;
  offset = 0;
  constructor(bytes: Uint8Array, dims: number) {
    this.bytes = bytes;
    this.dims = dims;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  header(type: keyof typeof TYPE_CODE) {
    this.view.setUint8(this.offset, 1);
    this.view.setUint32(this.offset + 1, TYPE_CODE[type] + DIMENSION_OFFSET[this.dims]!, true);
    this.offset += HEADER;
  }
  count(n: number) {
    this.view.setUint32(this.offset, n, true);
    this.offset += 4;
  }
  position(p: Position) {
    for (let d = 0; d < this.dims; d++) this.view.setFloat64(this.offset + d * 8, p[d]!, true);
    this.offset += this.dims * 8;
  }
  line(l: Position[]) {
    this.count(l.length);
    for (const p of l) this.position(p);
  }
  polygon(rings: Position[][]) {
    this.count(rings.length);
    for (const ring of rings) this.line(ring);
  }
  /** The members of a Multi* geometry: their count, then each as a geometry of its own (header and body). */
  members<T>(type: keyof typeof TYPE_CODE, members: T[], body: (member: T) => void) {
    this.count(members.length);
    for (const member of members) {
      this.header(type);
      body(member);
    }
  }
}

export function geometryToWkb(geometry: Geometry): Uint8Array {
  const dims = dimensionOf(geometry);
  const writer = new WkbWriter(new Uint8Array(byteLength(geometry, dims)), dims);
  writer.header(geometry.type);
  switch (geometry.type) {
    case 'Point':
      writer.position(geometry.coordinates);
      break;
    case 'LineString':
      writer.line(geometry.coordinates);
      break;
    case 'Polygon':
      writer.polygon(geometry.coordinates);
      break;
    case 'MultiPoint':
      writer.members('Point', geometry.coordinates, (p) => writer.position(p));
      break;
    case 'MultiLineString':
      writer.members('LineString', geometry.coordinates, (l) => writer.line(l));
      break;
    case 'MultiPolygon':
      writer.members('Polygon', geometry.coordinates, (p) => writer.polygon(p));
      break;
  }
  return writer.bytes;
}
