import { describe, expect, it } from 'vitest';
import { dataSourceKind } from '../../../core/resources/data-source/schema.ts';
import { API_VERSION } from '../../../core/resources/registry.ts';
import { startAuthApp } from '../../../test/support/auth-app.ts';
import { build, type Built } from '../../test/build.ts';
import { publishedDataset } from '../../test/published-dataset.ts';
import { assetUrl } from '../../views/assets.ts';

const CONFIG = 'instance.name = Test instance\ninstance.bbox = -13.5,6.9,-10.2,10.0';

const source = {
  apiVersion: API_VERSION,
  kind: 'DataSource',
  metadata: { name: 'chirps-v3-daily', namespace: 'default' },
  spec: {
    datasetName: 'CHIRPS daily',
    itemType: 'coverage',
    variable: 'precip',
    periodType: 'daily',
    provider: { name: 'chirps' },
  },
};

async function sourceWithDataset(built: Built) {
  await built.cluster.create(dataSourceKind, source);
  await publishedDataset(built, 'rain');
}

describe('a data source page', () => {
  it('shows the thumbnail of each dataset made from it inline, and an ingestion form followed by runs.js', async () => {
    const built = await build();
    await sourceWithDataset(built);
    const page = await built.app.inject({ url: '/data-sources/chirps-v3-daily?f=html' });
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('<img class="thumbnail" src="/datasets/rain/thumbnail.png"');
    expect(page.body).toContain('action="/ingestions" data-run');
    expect(page.body).toContain('<input type="hidden" name="dataset_id" value="chirps-v3-daily" />');
    expect(page.body).toContain(assetUrl('runs.js'));
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)/);
  });

  it('offers no form and loads no script on a read-only instance', async () => {
    const built = await build(`${CONFIG}\nread_only = on`);
    await sourceWithDataset(built);
    const page = await built.app.inject({ url: '/data-sources/chirps-v3-daily?f=html' });
    expect(page.body).toContain('This instance is read-only.');
    expect(page.body).not.toContain('data-run');
    expect(page.body).not.toContain(assetUrl('runs.js'));
  });

  it('offers a link to sign in, and no form, to a caller without F_DATASET_MANAGE once authentication is on', async () => {
    const auth = await startAuthApp();
    await auth.cluster.create(dataSourceKind, source);
    await auth.addUser('manager', 'pw', { authorities: ['F_DATASET_MANAGE'] });
    const anonymous = await (await fetch(`${auth.url}/data-sources/chirps-v3-daily?f=html`)).text();
    expect(anonymous).toContain('href="/login?return_to=%2Fdata-sources%2Fchirps-v3-daily"');
    expect(anonymous).not.toContain('data-run');
    const manager = await fetch(`${auth.url}/data-sources/chirps-v3-daily?f=html`, {
      headers: { authorization: `Basic ${Buffer.from('manager:pw').toString('base64')}` },
    });
    expect(await manager.text()).toContain('action="/ingestions" data-run');
  });
});
