import { describe, expect, it } from 'vitest';
import { startAuthApp } from '../../../test/support/auth-app.ts';
import { build } from '../../test/build.ts';
import { ASSETS, ASSETS_VERSION, assetUrl } from '../../views/assets.ts';

describe('GET /assets/{version}/{name}', () => {
  it('serves every asset of this build with its type, a year of caching and a validator', async () => {
    const { app } = await build();
    for (const [name, asset] of ASSETS) {
      const response = await app.inject({ url: assetUrl(name) });
      expect(response.statusCode, name).toBe(200);
      expect(response.headers['content-type'], name).toBe(asset.contentType);
      expect(response.headers['cache-control'], name).toBe('public, max-age=31536000, immutable');
      expect(response.rawPayload.equals(asset.bytes), name).toBe(true);
    }
    const leaflet = await app.inject({ url: assetUrl('leaflet/leaflet.js') });
    const again = await app.inject({
      url: assetUrl('leaflet/leaflet.js'),
      headers: { 'if-none-match': leaflet.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
  });

  it('answers 404 for another build or an unknown file, so that no stale URL is served the new file', async () => {
    const { app } = await build();
    const stale = await app.inject({ url: '/assets/0000000000000000/map.js' });
    expect(stale.statusCode).toBe(404);
    expect(stale.json()).toEqual({ detail: 'No asset map.js in build 0000000000000000' });
    expect((await app.inject({ url: `/assets/${ASSETS_VERSION}/../package.json` })).statusCode).toBe(404);
    expect((await app.inject({ url: `/assets/${ASSETS_VERSION}/leaflet/leaflet.js.map` })).statusCode).toBe(404);
  });

  it('stays public when reads need a user, since the sign-in page uses the stylesheet', async () => {
    const closed = await startAuthApp({ config: 'security.anonymous_read = off' });
    expect((await fetch(`${closed.url}/datasets`)).status).toBe(401);
    expect((await fetch(`${closed.url}${assetUrl('stratus.css')}`)).status).toBe(200);
    expect(await (await fetch(`${closed.url}/login`)).text()).toContain(assetUrl('stratus.css'));
  });
});
