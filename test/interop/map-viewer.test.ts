/**
 * The map viewer in headless Chromium (Debian's, through playwright-core) over an embedded instance with the sample
 * data: `/map` with the sample dataset, the time slider moved, the sample districts and one clicked (with its CHAP CSV
 * downloaded), then a place. Screenshots
 * of the map, the legend and the plot are compared pixel by pixel (decoded by a second, offline page), the plotted
 * series equals the means xarray and shapely compute from the served store, the page logs no error, and no request
 * leaves the local server.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { RunningEmbedded } from '../../cmd/embedded.ts';
import { describe, expect, it } from 'vitest';
import { readGeoParquetDocument } from '../../core/features/geoparquet-read.ts';
import { colorAt } from '../../core/render/colormap.ts';
import { currentVersionOf, datasetKind, type Dataset } from '../../core/resources/dataset/schema.ts';
import { featureCollectionKind, type FeatureCollection } from '../../core/resources/feature-collection/schema.ts';
import { analyticsTableKind, type AnalyticsTable } from '../../core/resources/analytics-table/schema.ts';
import { eventually } from '../support/eventually.ts';
import { examplesInBrowser } from '../support/examples-in-browser.ts';
import { python } from '../support/python.ts';

const examples = examplesInBrowser('stratus-map-');

/** How long the page may take to settle after a change: tiles and GeoJSON on a shared, busy machine. */
const settled = { timeout: 15_000, interval: 100 };

/** The example analytics table over the sample and its districts (`manifests/examples/`). */
const TABLE = 'sample-districts-monthly';

/** The example table's first build: the page offers a table once it serves a version. */
function tableServed(running: RunningEmbedded): Promise<unknown> {
  return eventually(
    async () => (await running.cluster.get<AnalyticsTable>(analyticsTableKind, TABLE, 'default'))?.status?.table,
    { timeoutMs: 120_000, intervalMs: 250 },
  );
}

/** The requests a page makes (`METHOD url`) and the errors and warnings it logs. */
function watch(page: Page): { requests: string[]; problems: string[] } {
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requests.push(`${request.method()} ${request.url()}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { requests, problems };
}

/** An RGBA screenshot: pixels by position. */
interface Pixels {
  width: number;
  height: number;
  at(x: number, y: number): [number, number, number, number];
}

/** Decodes a PNG screenshot with Chromium itself, in a page of its own that loads nothing from anywhere. */
async function decode(decoder: Page, png: Buffer): Promise<Pixels> {
  // The pixels come back as base64 text: an array of numbers would take half a minute to cross the protocol.
  const { width, height, rgba } = (await decoder.evaluate(`(async (base64) => {
    const image = new Image();
    image.src = 'data:image/png;base64,' + base64;
    await image.decode();
    const canvas = document.createElement('canvas');
    [canvas.width, canvas.height] = [image.width, image.height];
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const data = context.getImageData(0, 0, image.width, image.height).data;
    let text = '';
    for (let i = 0; i < data.length; i += 0x8000) text += String.fromCharCode(...data.subarray(i, i + 0x8000));
    return { width: image.width, height: image.height, rgba: btoa(text) };
  })(${JSON.stringify(png.toString('base64'))})`)) as { width: number; height: number; rgba: string };
  const data = Buffer.from(rgba, 'base64');
  return {
    width,
    height,
    at: (x, y) => [...data.subarray((y * width + x) * 4, (y * width + x) * 4 + 4)] as [number, number, number, number],
  };
}

/** The share of pixels whose colour differs by more than `tolerance` in some channel. */
function changedShare(a: Pixels, b: Pixels, tolerance = 8): number {
  expect([a.width, a.height]).toEqual([b.width, b.height]);
  let changed = 0;
  for (let y = 0; y < a.height; y++)
    for (let x = 0; x < a.width; x++) {
      const [p, q] = [a.at(x, y), b.at(x, y)];
      if (p.some((v, i) => Math.abs(v - q[i]!) > tolerance)) changed++;
    }
  return changed / (a.width * a.height);
}

/** How many pixels are within `tolerance` of `rgb`. */
function countNear(image: Pixels, rgb: number[], tolerance: number): number {
  let count = 0;
  for (let y = 0; y < image.height; y++)
    for (let x = 0; x < image.width; x++)
      if (rgb.every((v, i) => Math.abs(v - image.at(x, y)[i]!) <= tolerance)) count++;
  return count;
}

describe('the map viewer in headless Chromium', () => {
  it('shows the sample dataset by period with its legend, the districts, and a clicked district’s series equal to the store’s', async () => {
    const { dataDir, running, browser } = examples();
    // Served before the page opens, so that the page offers it and the district's series can leave it aside.
    await tableServed(running);
    const context = await browser.newContext({ viewport: { width: 1100, height: 1300 } });
    const page = await context.newPage();
    const decoder = await (await browser.newContext()).newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    const shoot = async (selector: string) =>
      decode(decoder, await page.locator(selector).screenshot({ animations: 'disabled' }));
    const viewer = page.locator('#map-viewer');

    const response = await page.goto(`${running.url}/map`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.locator('.leaflet-container').waitFor();
    // Country outlines from world-atlas, served by this server, give the map its context without a basemap.
    await expect.poll(async () => Number(await viewer.getAttribute('data-outlines')), settled).toBeGreaterThan(200);
    expect(requests.some((url) => url.includes('/world-atlas/countries-50m.json'))).toBe(true);
    // The map opens on the sample dataset and the districts (home-page.test.ts); from nothing shown, here.
    await page.selectOption('#map-dataset', '');
    await page.selectOption('#map-collection', '');
    await expect.poll(() => page.locator('.leaflet-tile, path[data-feature-id]').count(), settled).toBe(0);
    const empty = await shoot('#map');
    expect(countNear(empty, [134, 142, 150], 30)).toBeGreaterThan(100);

    // The sample dataset opens on its newest period.
    await page.selectOption('#map-dataset', 'sample');
    await expect.poll(() => viewer.getAttribute('data-period'), settled).toBe('2024-12-31');
    await expect.poll(() => viewer.getAttribute('data-tiles'), settled).toBe('ready');
    const newest = await shoot('#map');
    expect(changedShare(empty, newest)).toBeGreaterThan(0.3);

    // The legend: viridis from 0 to 100, the display settings of the sample source.
    expect(await page.locator('#map-legend').isVisible()).toBe(true);
    expect(await page.locator('#map-legend-min').textContent()).toBe('0');
    expect(await page.locator('#map-legend-max').textContent()).toBe('100');
    const ramp = await shoot('#map-legend-ramp');
    const middle = Math.floor(ramp.height / 2);
    const near = (pixel: number[], rgb: number[]) => rgb.every((v, i) => Math.abs(v - pixel[i]!) <= 6);
    expect(near(ramp.at(2, middle), colorAt('viridis', 0))).toBe(true);
    expect(near(ramp.at(ramp.width - 3, middle), colorAt('viridis', 1))).toBe(true);

    // The slider moved to the first period: other tiles, another picture.
    await page.locator('#map-time').fill('0');
    await expect.poll(() => viewer.getAttribute('data-period'), settled).toBe('2024-01-01');
    await expect.poll(() => viewer.getAttribute('data-tiles'), settled).toBe('ready');
    expect(await page.locator('#map-period').textContent()).toBe('2024-01-01');
    const first = await shoot('#map');
    expect(changedShare(newest, first)).toBeGreaterThan(0.1);

    // The districts: drawn in the boundary colour over the layer.
    await page.selectOption('#map-collection', 'sample-districts');
    await expect.poll(async () => Number(await viewer.getAttribute('data-boundaries')), settled).toBeGreaterThan(1);
    const bounded = await shoot('#map');
    expect(changedShare(first, bounded)).toBeGreaterThan(0.005);
    expect(countNear(bounded, [217, 72, 15], 40)).toBeGreaterThan(500);

    // Without an analytics table chosen, a click on one district computes its series.
    await page.selectOption('#map-table', '');
    const district = page.locator('path[data-feature-id]').nth(4);
    const code = (await district.getAttribute('data-feature-id'))!;
    await district.click();
    await expect.poll(() => viewer.getAttribute('data-series'), { timeout: 30_000 }).toBe('ready');
    const plot = page.locator('#map-series svg');
    expect(await plot.getAttribute('data-feature')).toBe(code);
    const labels = JSON.parse((await plot.getAttribute('data-labels'))!) as string[];
    const values = JSON.parse((await plot.getAttribute('data-values'))!) as (number | null)[];
    const drawn = await shoot('#map-series svg');
    expect(countNear(drawn, [31, 111, 235], 60)).toBeGreaterThan(200);

    // The same means, independently: xarray over the served store, shapely for the district's cells.
    const dataset = (await running.cluster.get<Dataset>(datasetKind, 'sample', 'default'))!;
    const collection = await running.cluster.get<FeatureCollection>(
      featureCollectionKind,
      'sample-districts',
      'default',
    );
    const { document } = await readGeoParquetDocument(
      await readFile(join(dataDir, 'store', collection!.status!.path!)),
      'sample-districts',
    );
    const feature = (document as { features: { properties: Record<string, unknown> }[] }).features.find(
      (f) => String(f.properties.code) === code,
    );
    expect(feature).toBeDefined();
    await writeFile(join(dataDir, 'district.json'), JSON.stringify(feature));
    const expected = await python<{ t: string[]; means: (number | null)[] }>(
      [
        'import json, sys, numpy, xarray',
        'from shapely.geometry import Point, shape',
        'from shapely.prepared import prep',
        'v = xarray.open_zarr(sys.argv[1], consolidated=True)["value"]',
        'g = prep(shape(json.load(open(sys.argv[2]))["geometry"]))',
        'mask = numpy.array([[g.contains(Point(x, y)) for x in v.lon.values] for y in v.lat.values])',
        'values = v.values[:, mask]',
        'means = [None if numpy.isnan(row).all() else float(numpy.nanmean(row)) for row in values]',
        'print(json.dumps({"t": [str(t)[:10] for t in v.time.values], "means": means}))',
      ].join('\n'),
      [join(dataDir, 'store', currentVersionOf(dataset)!.path), join(dataDir, 'district.json')],
    );
    expect(expected.means.filter((m) => m !== null).length).toBe(366);
    expect(labels.map((l) => l.slice(0, 10))).toEqual(expected.t);
    expected.means.forEach((mean, i) => expect(values[i], labels[i]).toBeCloseTo(mean!, 4));

    // Below the plot, every district's monthly means as CHAP CSV: the clicked one's January is its days' mean.
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 30_000 }),
      page.click('#map-chap-csv'),
    ]);
    expect(download.suggestedFilename()).toBe('sample-sample-districts.chap.csv');
    const rows = (await readFile((await download.path())!, 'utf8')).trimEnd().split('\r\n');
    expect(rows[0]).toBe('time_period,location,value');
    expect(rows).toHaveLength(1 + Number(await viewer.getAttribute('data-boundaries')) * 12);
    const january = rows.find((row) => row.startsWith(`2024-01,${code},`))!.split(',');
    const days = expected.means.slice(0, 31) as number[];
    expect(Number(january[2])).toBeCloseTo(days.reduce((a, b) => a + b, 0) / days.length, 4);

    // Off the boundaries, a click plots the place: the series of the grid cell that holds it.
    await page.selectOption('#map-collection', '');
    await page.locator('#map').click();
    await expect
      .poll(() => page.locator('#map-series svg').getAttribute('data-feature'), { timeout: 30_000 })
      .toMatch(/^-?[\d.]+,-?[\d.]+$/);
    const [lat, lon] = (await page.locator('#map-series svg').getAttribute('data-feature'))!.split(',');
    const place = JSON.parse((await page.locator('#map-series svg').getAttribute('data-values'))!) as number[];
    const cell = await python<(number | null)[]>(
      [
        'import json, sys, numpy, xarray',
        'v = xarray.open_zarr(sys.argv[1], consolidated=True)["value"]',
        'series = v.sel(lat=float(sys.argv[2]), lon=float(sys.argv[3]), method="nearest").values',
        'print(json.dumps([None if numpy.isnan(x) else float(x) for x in series]))',
      ].join('\n'),
      [join(dataDir, 'store', currentVersionOf(dataset)!.path), lat!, lon!],
    );
    expect(place).toHaveLength(366);
    cell.forEach((value, i) => expect(place[i], labels[i]).toBeCloseTo(value!, 4));

    expect(problems).toEqual([]);
    const hosts = new Set(requests.map((url) => new URL(url).host));
    expect([...hosts]).toEqual([new URL(running.url).host]);
    await context.close();
  }, 150_000);

  it('colours the districts by the analytics table’s values with a legend, and plots a clicked one’s series from the table', async () => {
    const { running, browser } = examples();
    const table = TABLE;
    await tableServed(running);
    const context = await browser.newContext({ viewport: { width: 1100, height: 1300 } });
    const page = await context.newPage();
    const { requests, problems } = watch(page);
    const viewer = page.locator('#map-viewer');
    const analytics = async (query: string) => {
      const answer = (await (await fetch(`${running.url}/analytics/${table}?${query}`)).json()) as {
        rows: string[][];
      };
      // Rows are [dx, ou, pe, value].
      return answer.rows;
    };

    // It opens on the sample and the districts, coloured by the table's newest month's mean.
    await page.goto(`${running.url}/map`);
    await expect.poll(() => viewer.getAttribute('data-choropleth'), settled).toBe('ready');
    expect(await page.locator('#map-table').inputValue()).toBe(table);
    expect(await page.locator('#map-period-type').inputValue()).toBe('monthly');
    expect(await page.locator('#map-table-period').inputValue()).toBe('202412');
    expect(await page.locator('#map-stat').inputValue()).toBe('mean');

    /** Each district's fill equals the colour of the legend class holding its value in the table. */
    const expectColoured = async (pe: string, stat: string) => {
      const values = new Map((await analytics(`pe=${pe}&stat=${stat}`)).map((row) => [row[1]!, Number(row[3])]));
      expect(values.size).toBeGreaterThan(1);
      const classes = await page.locator('#map-classes-list li[data-lower]').evaluateAll((items) =>
        items.map((li) => ({
          lower: Number(li.getAttribute('data-lower')),
          upper: Number(li.getAttribute('data-upper')),
          color: li.getAttribute('data-color')!,
        })),
      );
      expect(classes.length).toBeGreaterThan(1);
      expect(new Set(classes.map((c) => c.color)).size).toBe(classes.length);
      expect(classes[0]!.lower).toBeCloseTo(Math.min(...values.values()), 6);
      expect(classes.at(-1)!.upper).toBeCloseTo(Math.max(...values.values()), 6);
      const fills = await page
        .locator('path[data-feature-id]')
        .evaluateAll((paths) => paths.map((p) => [p.getAttribute('data-feature-id')!, p.getAttribute('fill')!]));
      expect(fills).toHaveLength(values.size);
      for (const [ou, fill] of fills) {
        const value = values.get(ou!)!;
        expect(value, ou).toBeDefined();
        expect(fill, `${ou} ${value}`).toBe(classes.find((c) => value <= c.upper)!.color);
      }
      // Units of the dataset (the legend's text) beside each class.
      expect(await page.locator('#map-classes-list li').first().textContent()).toMatch(/ – /);
      expect(await page.locator('#map-classes-list li').last().textContent()).toBe('No data');
    };
    await expectColoured('202412', 'mean');

    // Another month and statistic: another request, other colours.
    await page.selectOption('#map-stat', 'sum');
    await page.selectOption('#map-table-period', '202401');
    await expect.poll(() => viewer.getAttribute('data-choropleth'), settled).toBe('ready');
    await expect
      .poll(() => requests.some((r) => r.endsWith(`/analytics/${table}?pe=202401&stat=sum`)), settled)
      .toBe(true);
    await expect.poll(() => viewer.getAttribute('data-choropleth'), settled).toBe('ready');
    await expectColoured('202401', 'sum');

    // A click plots the district's monthly sums from the table: one request with its ou, nothing computed.
    const before = requests.length;
    const district = page.locator('path[data-feature-id]').nth(4);
    const code = (await district.getAttribute('data-feature-id'))!;
    await district.click();
    await expect.poll(() => viewer.getAttribute('data-series'), settled).toBe('ready');
    const plot = page.locator('#map-series svg');
    expect(await plot.getAttribute('data-feature')).toBe(code);
    expect(await plot.getAttribute('data-table')).toBe(table);
    const series = (await analytics(`ou=${code}&stat=sum`)).filter((row) => row[2]!.length === 6);
    expect(series).toHaveLength(12);
    expect(JSON.parse((await plot.getAttribute('data-labels'))!)).toEqual(
      series.map((row) => `${row[2]!.slice(0, 4)}-${row[2]!.slice(4)}`),
    );
    expect(JSON.parse((await plot.getAttribute('data-values'))!)).toEqual(series.map((row) => Number(row[3])));
    const asked = requests.slice(before);
    expect(asked.filter((r) => r.includes('/analytics/'))).toEqual([
      `GET ${running.url}/analytics/${table}?ou=${code}&stat=sum`,
    ]);
    expect(asked.some((r) => r.startsWith('POST'))).toBe(false);

    // The clicked district stays drawn as selected (its stroke the wider) while the map redraws: another period,
    // another statistic, a zoom.
    const selected = async () =>
      (
        await page
          .locator('path[data-feature-id]')
          .evaluateAll((paths) => paths.map((p) => [p.getAttribute('data-feature-id'), p.getAttribute('stroke-width')]))
      ).flatMap(([id, width]) => (width === '3' ? [id] : []));
    expect(await selected()).toEqual([code]);
    for (const [select, value, query] of [
      ['#map-table-period', '202406', 'pe=202406&stat=sum'],
      ['#map-stat', 'mean', 'pe=202406&stat=mean'],
      ['#map-stat', 'sum', 'pe=202406&stat=sum'],
    ] as const) {
      const asked = requests.length;
      await page.selectOption(select, value);
      await expect
        .poll(() => requests.slice(asked).some((r) => r.endsWith(`/analytics/${table}?${query}`)), settled)
        .toBe(true);
      await expect.poll(() => viewer.getAttribute('data-choropleth'), settled).toBe('ready');
      await expect.poll(() => viewer.getAttribute('data-series'), settled).toBe('ready');
      expect(await selected(), `${select} ${value}`).toEqual([code]);
    }
    const outline = await district.getAttribute('d');
    await page.click('.leaflet-control-zoom-in');
    await expect.poll(() => district.getAttribute('d'), settled).not.toBe(outline);
    expect(await selected()).toEqual([code]);

    // The yearly period type: the year's value.
    await page.selectOption('#map-period-type', 'yearly');
    await expect.poll(() => plot.getAttribute('data-labels'), settled).toBe('["2024"]');
    const [year] = await analytics(`ou=${code}&pe=2024&stat=sum`);
    expect(JSON.parse((await page.locator('#map-series svg').getAttribute('data-values'))!)).toEqual([
      Number(year![3]),
    ]);

    // None: the boundaries are outlines again, and the classes go.
    await page.selectOption('#map-table', '');
    await expect.poll(() => viewer.getAttribute('data-choropleth'), settled).toBeNull();
    expect(await page.locator('#map-classes').isVisible()).toBe(false);
    const fills = await page
      .locator('path[data-feature-id]')
      .evaluateAll((paths) => paths.map((p) => p.getAttribute('fill')));
    expect(new Set(fills)).toEqual(new Set(['#d9480f']));

    expect(problems).toEqual([]);
    expect(new Set(requests.map((r) => new URL(r.split(' ')[1]!).host))).toEqual(new Set([new URL(running.url).host]));
    await context.close();
  }, 150_000);

  it('shows thumbnails inline at 256 pixels and an ingestion’s progress live, without a reload', async () => {
    const { running, browser } = examples();
    const context = await browser.newContext();
    const page = await context.newPage();
    const { requests, problems } = watch(page);

    // The sample grid is 66 × 62 cells: its thumbnail is scaled up to 256 pixels on the longer side.
    for (const path of ['/datasets/sample', '/data-sources/sample']) {
      await page.goto(`${running.url}${path}`);
      const size = await page
        .locator('img.thumbnail')
        .first()
        .evaluate((img) => [(img as unknown as { naturalWidth: number }).naturalWidth]);
      expect(size, path).toEqual([256]);
    }

    // An ingestion started from the coarse sample's page: the page follows its job record to the end.
    await page.goto(`${running.url}/data-sources/sample-coarse`);
    await page.evaluate('window.stillTheSamePage = true');
    await page.fill('input[name=start]', '2024-02-01');
    await page.fill('input[name=end]', '2024-02-10');
    await page.click('form[data-run] button[type=submit]');
    const bar = page.locator('.run-progress progress');
    await expect.poll(() => bar.getAttribute('data-status'), { timeout: 30_000, interval: 100 }).toBe('successful');
    expect(await bar.getAttribute('value')).toBe('100');
    const job = (await page.locator('.run-progress a').getAttribute('href'))!;
    expect(job).toMatch(/^\/ingestions\/jobs\//);
    expect(await page.evaluate('window.stillTheSamePage')).toBe(true);
    expect(requests).toContain(`POST ${running.url}/ingestions`);
    expect(requests.filter((r) => r === `GET ${running.url}${job}`).length).toBeGreaterThanOrEqual(1);
    expect(((await (await fetch(`${running.url}${job}`)).json()) as { status: string }).status).toBe('successful');

    expect(problems).toEqual([]);
    expect(new Set(requests.map((r) => new URL(r.split(' ')[1]!).host))).toEqual(new Set([new URL(running.url).host]));
    await context.close();
  }, 45_000);
});
