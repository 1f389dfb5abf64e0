import { describe, expect, it } from 'vitest';
import { parseInstanceConfig } from '../../../core/config/index.ts';
import { datasetKind } from '../../../core/resources/dataset/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { startAuthApp } from '../../../test/support/auth-app.ts';
import { build } from '../../test/build.ts';
import { publishedDataset } from '../../test/published-dataset.ts';
import { assetUrl } from '../../views/assets.ts';

const CONFIG = 'instance.name = Test instance\ninstance.bbox = -13.5,6.9,-10.2,10.0';

describe('GET /map', () => {
  it('offers the datasets with tiles, loads Leaflet and its script from this server, and sends the strict policy', async () => {
    const built = await build();
    await publishedDataset(built, 'rain');
    // Not materialized: no tiles yet, so not offered.
    await built.cluster.create(datasetKind, {
      apiVersion: API_VERSION,
      kind: 'Dataset',
      metadata: { name: 'empty', namespace: 'default' },
      spec: { source: 'chirps-v3-daily', datasetName: 'Empty', itemType: 'coverage', format: 'zarr' },
    });
    const page = await built.app.inject({ url: '/map?dataset=rain' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(page.body).toContain('<option value="rain" data-units="mm" selected>CHIRPS rain</option>');
    expect(page.body).not.toContain('value="empty"');
    // Without a choice in the query, the map opens on the first dataset with tiles.
    const opening = await built.app.inject({ url: '/map' });
    expect(opening.body).toContain('<option value="rain" data-units="mm" selected>CHIRPS rain</option>');
    for (const name of ['leaflet/leaflet.js', 'map.js', 'leaflet/leaflet.css', 'stratus.css'])
      expect(page.body).toContain(assetUrl(name));
    // Every script is a file of this server and no style is inline, as the policy requires.
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)/);
    expect(page.body).not.toMatch(/<style|\sstyle=/);
    expect(page.body).toContain('data-basemap-url=""');
    // An open instance: anyone may compute series.
    expect(page.body).toContain('data-series-allowed="true"');
  });

  it('shows a configured basemap, whose origin the policy lets images come from', async () => {
    const { app } = await build(
      `${CONFIG}\nmap.basemap.url = https://{s}.tile.example.org/{z}/{x}/{y}.png\nmap.basemap.attribution = © Example`,
    );
    const page = await app.inject({ url: '/map' });
    expect(page.headers['content-security-policy']).toContain("img-src 'self' data: https://*.tile.example.org;");
    expect(page.body).toContain('data-basemap-url="https://{s}.tile.example.org/{z}/{x}/{y}.png"');
    expect(page.body).toContain('data-basemap-attribution="© Example"');
  });

  it('refuses a basemap that is no tile URL template at startup', () => {
    expect(() => parseInstanceConfig(`${CONFIG}\nmap.basemap.url = https://tile.example.org/tiles.png`, 'f')).toThrow(
      /map\.basemap\.url.*\{z\}, \{x\} and \{y\}/,
    );
  });
});

describe('the map viewer with authentication on', () => {
  it('opens anonymously with its assets, and its series needs a user with F_JOB_MANAGE (POST /result)', async () => {
    const app = await startAuthApp();
    await app.addUser('analyst', 'pw', { authorities: ['F_JOB_MANAGE'] });
    await app.addUser('reader', 'pw');
    const page = await fetch(`${app.url}/map`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    // map.js offers to sign in instead of posting: a 401 would make the browser ask for Basic credentials.
    expect(await page.text()).toContain('data-series-allowed="false"');
    const as = (user: string) => ({ authorization: `Basic ${Buffer.from(`${user}:pw`).toString('base64')}` });
    expect(await (await fetch(`${app.url}/map`, { headers: as('reader') })).text()).toContain(
      'data-series-allowed="false"',
    );
    expect(await (await fetch(`${app.url}/map`, { headers: as('analyst') })).text()).toContain(
      'data-series-allowed="true"',
    );
    expect((await fetch(`${app.url}${assetUrl('map.js')}`)).status).toBe(200);
    const series = await fetch(`${app.url}/result`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ process: { process_graph: {} } }),
    });
    // map.js shows a link to sign in for this answer.
    expect(series.status).toBe(401);
  });
});

describe('a dataset page', () => {
  it('shows its thumbnail inline, the map on its tiles and a sync form followed by runs.js', async () => {
    const built = await build();
    await publishedDataset(built, 'rain', { thumbnail: true });
    const page = await built.app.inject({ url: '/datasets/rain', headers: { accept: 'text/html' } });
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('<img class="thumbnail" src="/datasets/rain/thumbnail.png"');
    expect(page.body).toContain('<option value="rain" data-units="mm" selected>');
    expect(page.body).toContain('action="/sync/rain" data-run');
    expect(page.body).toContain(assetUrl('runs.js'));
  });
});
