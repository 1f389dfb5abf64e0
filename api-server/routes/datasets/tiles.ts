import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { colormapNames } from '../../../core/render/colormap.ts';
import { isTile, MAX_LATITUDE } from '../../../core/render/tiles.ts';
import { HttpError, validationFailed } from '../../errors.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { commonErrorResponses, datasetRefSchema, errorDetailSchema } from '../../schemas.ts';
import { datasetRef } from '../../services/resources/served-version.ts';
import { DatasetTiles } from '../../services/tiles/dataset-tiles.ts';

const tags = ['Datasets'];
const NUMBER = '-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?';

const tileQuerySchema = z.object({
  time: z
    .string()
    .max(40)
    .optional()
    .describe('A period label of the dataset (`2024-01-15` for daily); the newest by default.'),
  colormap: z
    .string()
    .max(40)
    .optional()
    .describe(`A colour map: ${colormapNames.join(', ')}; the dataset's by default.`),
  range: z
    .string()
    .max(80)
    .optional()
    .describe(
      "`min,max`: the values at the two ends of the colour map; the dataset's display range by default, else the period's own.",
    ),
});

/**
 * Web Mercator XYZ tiles of a dataset's served version, and its TileJSON. A tile is rendered from the stored
 * chunks under it with the source's display settings; its ETag names the version, period and style, so a switch
 * to a new version changes every tile's validator.
 */
export const tileRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, namespace, storageRoot, config } = app.stratus;
  const tiles = new DatasetTiles(cluster, namespace, storageRoot);

  app.route({
    method: ['GET', 'HEAD'],
    url: '/datasets/:dataset_id/tiles/:z/:x/:y.png',
    schema: {
      summary: 'A map tile of a dataset',
      description:
        'A 256 × 256 PNG in Web Mercator (EPSG:3857) of one period of the served version, nodata transparent. ' +
        '404 for a tile wholly outside the extent or an unknown period; 422 for a bad z/x/y, colour map or range. ' +
        'A store with multiscale levels is drawn from the coarsest level whose cells are no larger than the ' +
        "tile's pixels. " +
        '`/datasets/{dataset_id}@{version}/tiles/...` draws a retained version instead.',
      tags,
      params: z.object({ dataset_id: datasetRefSchema, z: z.string(), x: z.string(), y: z.string() }),
      querystring: tileQuerySchema,
      produces: ['image/png'],
      response: {
        200: z.any(),
        304: z.null(),
        404: errorDetailSchema,
        ...commonErrorResponses,
      },
    },
    handler: async (request, reply) => {
      const ref = datasetRef(request.params.dataset_id);
      const { id } = ref;
      const [z_, x, y] = [request.params.z, request.params.x, request.params.y].map((v) =>
        /^\d{1,8}$/.test(v) ? Number(v) : NaN,
      );
      if (!isTile(z_!, x!, y!)) {
        // The coordinate at fault: z when it is no zoom level, else the first of x and y past the zoom's tiles.
        const field = !isTile(z_!, 0, 0) ? 'z' : !isTile(z_!, x!, 0) ? 'x' : 'y';
        throw validationFailed(
          ['path', field],
          `${request.params.z}/${request.params.x}/${request.params.y} is not a tile: z is 0 to 24, x and y 0 to 2^z - 1`,
        );
      }
      const { time, colormap, range } = request.query;
      if (colormap !== undefined && !colormapNames.includes(colormap))
        throw validationFailed(['query', 'colormap'], `colormap ${colormap} is not one of ${colormapNames.join(', ')}`);
      const bounds = range?.split(',').map(Number);
      if (range !== undefined && (!new RegExp(`^${NUMBER},${NUMBER}$`).test(range) || !(bounds![0]! < bounds![1]!)))
        throw validationFailed(['query', 'range'], `range ${range} is not min,max with min below max`);
      const tiled = await tiles.version(ref);
      const index = time === undefined ? tiled.periods.length - 1 : tiled.periods.indexOf(time);
      if (index < 0) throw new HttpError('NotFound', `Dataset ${id} has no period ${time}`);
      const etag = `"tile-${tiled.version}-${tiled.periods[index]}-${colormap ?? ''}-${range ?? ''}"`;
      // Tiles change only with the served version: clients revalidate, and a 304 costs no rendering.
      reply.header('etag', etag).header('cache-control', 'no-cache');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send(null);
      const png = await tiles.tile(
        tiled,
        index,
        { z: z_!, x: x!, y: y! },
        { ...(colormap && { colormap }), ...(bounds && { range: bounds as [number, number] }) },
      );
      return reply.type('image/png').send(png);
    },
  });

  app.get(
    '/datasets/:dataset_id/tiles.json',
    {
      schema: {
        summary: 'TileJSON of a dataset',
        description:
          'TileJSON 3.0.0 of the tiles of the served version (`{dataset_id}@{version}`: of a retained one), with its ' +
          'periods (`time` values).',
        tags,
        params: z.object({ dataset_id: datasetRefSchema }),
        response: { 200: z.record(z.string(), z.unknown()), 404: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      const ref = request.params.dataset_id;
      const tiled = await tiles.version(datasetRef(ref));
      const base = publicBaseUrl(request, config.server.baseUrl);
      const { west, south, east, north } = tiled.bounds;
      return {
        tilejson: '3.0.0',
        name: ref,
        tiles: [`${base}/datasets/${ref}/tiles/{z}/{x}/{y}.png`],
        bounds: [west, Math.max(south, -MAX_LATITUDE), east, Math.min(north, MAX_LATITUDE)],
        center: [(west + east) / 2, (south + north) / 2, Math.max(0, tiled.maxzoom - 3)],
        minzoom: 0,
        maxzoom: tiled.maxzoom,
        // Stratus's own members: which periods the `time` parameter takes, and the colouring.
        periods: tiled.periods,
        colormap: tiled.style.colormap,
        ...(tiled.style.range && { range: tiled.style.range }),
      };
    },
  );
};
