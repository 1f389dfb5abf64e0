/**
 * The home page's examples of reaching this instance from clients, with its public URL and one of its datasets:
 * each is text a person copies as it stands.
 */
export interface Snippet {
  id: string;
  title: string;
  /** What the snippet needs or does, in a sentence. */
  note: string;
  code: string;
}

/** `dataset`: a dataset with map tiles (and so a Zarr store), or a placeholder when the instance has none yet. */
export function clientSnippets(baseUrl: string, dataset: string): Snippet[] {
  return [
    {
      id: 'python-xarray',
      title: 'Python: xarray',
      note: 'Opens the dataset’s Zarr store (packages xarray, zarr and fsspec with aiohttp).',
      code: `import xarray as xr\n\nds = xr.open_zarr("${baseUrl}/zarr/${dataset}/", consolidated=True)\nprint(ds)`,
    },
    {
      id: 'openeo-python',
      title: 'openEO: Python client',
      note: 'The openeo package; this URL is the openEO back-end.',
      code:
        `import openeo\n\nconnection = openeo.connect("${baseUrl}/")\n` +
        `cube = connection.load_collection("${dataset}")\nprint(cube)`,
    },
    {
      id: 'openeo-js',
      title: 'openEO: JavaScript client',
      note: 'The npm package @openeo/js-client, in Node or a browser module.',
      code:
        `import { OpenEO } from "@openeo/js-client";\n\n` +
        `const connection = await OpenEO.connect("${baseUrl}/");\n` +
        `console.log(await connection.describeCollection("${dataset}"));`,
    },
    {
      id: 'curl',
      title: 'curl with a token',
      note: 'An access token of this instance’s authorization server in TOKEN; reads need none unless anonymous reads are off.',
      code: `curl -H "Authorization: Bearer $TOKEN" "${baseUrl}/datasets/${dataset}"`,
    },
    {
      id: 'qgis',
      title: 'QGIS: map tiles',
      note: 'The TileJSON document describes the tiles; in QGIS add an XYZ Tiles connection with the template below it.',
      code: `${baseUrl}/datasets/${dataset}/tiles.json\n${baseUrl}/datasets/${dataset}/tiles/{z}/{x}/{y}.png`,
    },
  ];
}
