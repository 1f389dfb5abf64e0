/**
 * The first pages a person opens, in headless Chromium on an embedded instance as `make run` starts it (sign-in
 * on, the example manifests applied): the home page shows a dataset's preview, a run and client snippets with
 * this instance's URL, and `/map` draws the sample dataset's newest period with the districts and a legend
 * without a click; no console error or warning, and no request leaves the machine.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { keepOnLoopback } from '../support/chromium.ts';
import { examplesInBrowser } from '../support/examples-in-browser.ts';

// As `make run` starts it: sign-in on.
const examples = examplesInBrowser('stratus-home-', { authentication: true });

/** How long the page may take to settle: tiles and GeoJSON on a shared, busy machine. */
const settled = { timeout: 15_000, interval: 100 };

/** A page of a fresh context that refuses every request off the machine and records what the console says. */
async function watchedPage(): Promise<{ context: BrowserContext; page: Page; refused: string[]; problems: string[] }> {
  const context = await examples().browser.newContext({ viewport: { width: 1100, height: 1300 } });
  const refused = await keepOnLoopback(context);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { context, page, refused, problems };
}

describe('the home page and the map in headless Chromium', () => {
  it('shows a dataset’s preview, a run, the districts, a sign-in link and snippets with this instance’s URL', async () => {
    const { context, page, refused, problems } = await watchedPage();
    const { running } = examples();
    const response = await page.goto(`${running.url}/`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toMatch(/^text\/html/);

    const preview = page.locator('img.preview[src="/datasets/sample/thumbnail.png"]');
    expect(await preview.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(256);
    expect(await page.locator('a[href="/datasets/sample"]').textContent()).toBe('Sample daily field');

    const run = page.locator('a[href^="/ingestions/jobs/"]').first();
    const job = (await run.getAttribute('href'))!;
    expect((await fetch(`${running.url}${job}`)).status).toBe(200);
    expect(await page.locator('.run-status').first().getAttribute('data-status')).toMatch(
      /^(accepted|running|retrying|successful|failed|cancelled)$/,
    );
    expect(await page.locator('a[href="/features/sample-districts"]').count()).toBe(1);
    expect(await page.locator('a[href="/login?return_to=%2F"]').textContent()).toBe('Sign in');

    const snippet = (id: string) => page.locator(`#snippet-${id}`).textContent();
    expect(await snippet('python-xarray')).toContain(`xr.open_zarr("${running.url}/zarr/sample/"`);
    expect(await snippet('openeo-python')).toContain(`openeo.connect("${running.url}/")`);
    expect(await snippet('openeo-js')).toContain(`OpenEO.connect("${running.url}/")`);
    expect(await snippet('curl')).toContain(`Bearer $TOKEN" "${running.url}/datasets/sample"`);
    expect(await snippet('qgis')).toContain(`${running.url}/datasets/sample/tiles.json`);
    // home.js gave each snippet its copy button; the TileJSON it names answers.
    expect(await page.locator('button.copy').count()).toBe(5);
    expect((await fetch(`${running.url}/datasets/sample/tiles.json`)).status).toBe(200);

    // Every link of the page leads somewhere on this instance.
    const links = await page
      .locator('a[href]')
      .evaluateAll((anchors) => anchors.map((a) => (a as unknown as { href: string }).href));
    for (const link of new Set(links)) {
      expect(new URL(link).origin, link).toBe(running.url);
      expect((await fetch(link, { headers: { accept: 'text/html' } })).status, link).toBeLessThan(400);
    }

    expect(problems).toEqual([]);
    expect(refused).toEqual([]);
    await context.close();
  }, 30_000);

  it('opens /map on the sample dataset’s newest period with its tiles, legend and units, and the districts', async () => {
    const { context, page, refused, problems } = await watchedPage();
    const { running } = examples();
    await page.goto(`${running.url}/map`);
    const viewer = page.locator('#map-viewer');
    await expect.poll(() => viewer.getAttribute('data-tiles'), settled).toBe('ready');
    expect(await viewer.getAttribute('data-period')).toBe('2024-12-31');
    expect(await page.locator('#map-dataset').inputValue()).toBe('sample');
    expect(await page.locator('#map-collection').inputValue()).toBe('sample-districts');
    await expect.poll(async () => Number(await viewer.getAttribute('data-boundaries')), settled).toBeGreaterThan(1);

    // Tiles of the newest period, decoded by the browser: drawn, not only asked for.
    const tiles = page.locator('img.leaflet-tile-loaded');
    expect(await tiles.count()).toBeGreaterThan(0);
    const drawn = await tiles.evaluateAll((images) =>
      images.map((img) => {
        const { src, naturalWidth } = img as unknown as { src: string; naturalWidth: number };
        return { src, naturalWidth };
      }),
    );
    for (const tile of drawn) {
      expect(tile.src).toMatch(/\/datasets\/sample\/tiles\/\d+\/\d+\/\d+\.png\?time=2024-12-31$/);
      expect(tile.naturalWidth).toBe(256);
    }

    expect(await page.locator('#map-legend').isVisible()).toBe(true);
    expect(await page.locator('#map-legend-min').textContent()).toBe('0');
    expect(await page.locator('#map-legend-max').textContent()).toBe('100');
    expect(await page.locator('#map-legend-units').textContent()).toBe('Units: 1 (dimensionless)');

    expect(problems).toEqual([]);
    expect(refused).toEqual([]);
    await context.close();
  }, 30_000);
});
