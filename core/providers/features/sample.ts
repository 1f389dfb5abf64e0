/**
 * The offline `sample` feature provider: districts of the requested extent, so that a laptop or a demo has a
 * feature collection with no network. The extent is cut into `columns` x `rows` quadrilaterals whose inner
 * corners are moved by a hash of (seed, corner), so districts look irregular yet tile the extent exactly: two
 * neighbours share their edge. Same inputs, same districts.
 */
import { parameter } from '../options.ts';
import { hash } from '../sample-hash.ts';
import type { Position } from '../../features/geometry.ts';
import { RunError } from '../../runs/errors.ts';
import type { FeatureProvider } from './provider.ts';

/** How far an inner corner may move, as a share of the cell size: under half, so quadrilaterals stay convex-ish. */
const JITTER = 0.3;

function count(parameters: Record<string, unknown>, name: string, fallback: number): number {
  const value = parameter('sample', parameters, name, 'number') ?? fallback;
  if (!Number.isInteger(value) || value < 1 || value > 50)
    throw new RunError('InvalidParameters', `sample provider: ${name} must be an integer from 1 to 50`);
  return value;
}

export const sampleFeatureProvider: FeatureProvider = {
  name: 'sample',
  fetch: async ({ parameters, bbox }) => {
    const seed = parameter('sample', parameters, 'seed', 'number') ?? 42;
    const columns = count(parameters, 'columns', 4);
    const rows = count(parameters, 'rows', 3);
    const [xmin, ymin, xmax, ymax] = bbox;
    const [dx, dy] = [(xmax - xmin) / columns, (ymax - ymin) / rows];
    const round = (v: number) => Math.round(v * 1e6) / 1e6;
    const corner = (i: number, j: number): Position => {
      const inner = (k: number, n: number) => k > 0 && k < n;
      const shiftX = inner(i, columns) ? (hash(seed, i, j, 0) - 0.5) * 2 * JITTER * dx : 0;
      const shiftY = inner(j, rows) ? (hash(seed, i, j, 1) - 0.5) * 2 * JITTER * dy : 0;
      return [round(xmin + i * dx + shiftX), round(ymax - j * dy + shiftY)];
    };
    const features = [];
    for (let j = 0; j < rows; j++)
      for (let i = 0; i < columns; i++) {
        const number = j * columns + i + 1;
        const ring = [corner(i, j), corner(i, j + 1), corner(i + 1, j + 1), corner(i + 1, j), corner(i, j)];
        features.push({
          type: 'Feature',
          properties: {
            code: `SD${String(number).padStart(2, '0')}`,
            name: `Sample district ${number}`,
            region: `Sample region ${j + 1}`,
            level: 2,
          },
          geometry: { type: 'Polygon', coordinates: [ring] },
        });
      }
    return { document: { type: 'FeatureCollection', features }, origin: 'the sample provider' };
  },
};
