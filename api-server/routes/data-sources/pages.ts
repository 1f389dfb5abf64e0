import { html, mono, page, summary, table } from '../../views/html.ts';
import { RUN_ASSETS, runForm, runStarter, type RunAccess } from '../../views/runs.ts';
import type { DataSourceRecord } from './record.ts';

export function dataSourceListPage(instanceName: string, records: DataSourceRecord[]): string {
  const rows = records
    .filter((r) => r.ingestable)
    .map((r) => [
      html`<a href="/data-sources/${r.dataset_id}">${r.dataset_name}</a>`,
      mono(r.dataset_id),
      html`${r.itemType}`,
      html`${r.period_type ?? ''}`,
      html`${r.units ?? ''}`,
    ]);
  return page(
    'Data sources',
    instanceName,
    html`<h1>Data sources</h1>
      ${
        rows.length === 0
          ? html`<p>This instance has no provider for any data source.</p>`
          : table(['Name', 'Id', 'Type', 'Period', 'Units'], rows)
      }
      <p class="muted">
        Also as <a href="/data-sources?f=json">JSON</a>, which lists every source with <code>ingestable</code>.
      </p>`,
  );
}

/**
 * The detail page: the thumbnails of the datasets made from the source, and the form that starts an ingestion
 * (a refresh for a feature collection template), whose run's progress `runs.js` follows on the page.
 */
export function dataSourcePage(
  instanceName: string,
  r: DataSourceRecord,
  runs: RunAccess,
  thumbnails: { datasetId: string; href: string }[],
): string {
  const startable = r.ingestable && runs === 'allowed';
  const form = !r.ingestable
    ? html`<p>This instance has no provider for this source.</p>`
    : runStarter(runs, `/data-sources/${r.dataset_id}`, () =>
        r.itemType === 'feature'
          ? // A feature collection template is fetched by a refresh, which has no periods to ask for.
            runForm(`/features/${r.dataset_id}/refresh`, 'Refresh the feature collection')
          : runForm(
              '/ingestions',
              'Ingest',
              html`<input type="hidden" name="dataset_id" value="${r.dataset_id}" />
                <label>Start <input name="start" required placeholder="${r.period_type ?? ''} period" /></label>
                <label>End <input name="end" placeholder="last complete period" /></label>
                <label><input type="checkbox" name="overwrite" /> Overwrite</label>
                <label><input type="checkbox" name="publish" checked /> Publish</label>`,
            ),
      );
  return page(
    r.dataset_name,
    instanceName,
    html`${summary(r.dataset_name, r.description, [
        ['Id', r.dataset_id],
        ['Type', r.itemType],
        ['Variable', r.variable],
        ['Units', r.units],
        ['Period', r.period_type],
        ['Resolution', r.resolution],
        ['Source', r.source],
        ['License', r.license],
        ['Provider', r.provider],
      ])}
      ${thumbnails.map(
        (t) =>
          html`<h2>Preview of <a href="/datasets/${t.datasetId}">${t.datasetId}</a></h2>
            <img class="thumbnail" src="${t.href}" alt="${t.datasetId}: the newest period" />`,
      )}
      <h2>${r.itemType === 'feature' ? 'Refresh' : 'Ingest'}</h2>
      ${form}
      <p class="muted">Also as <a href="/data-sources/${r.dataset_id}?f=json">JSON</a>.</p>`,
    startable ? RUN_ASSETS : {},
  );
}
