import { html, mono, page, summary, table } from '../../views/html.ts';
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

/** The detail page; its form posts a CreateIngestionRequest as JSON and links to the job it starts. */
export function dataSourcePage(instanceName: string, r: DataSourceRecord, readOnly: boolean): string {
  // A feature collection template is fetched by a refresh, which has no periods to ask for.
  const refreshHint = html`<p>
    A feature collection template: <code>POST /features/${r.dataset_id}/refresh</code> fetches it.
  </p>`;
  const form =
    !r.ingestable || readOnly
      ? html`<p>${readOnly ? 'This instance is read-only.' : 'This instance has no provider for this source.'}</p>`
      : html`<form id="ingest" data-source="${r.dataset_id}">
            <label>Start <input name="start" required placeholder="${r.period_type ?? ''} period" /></label>
            <label>End <input name="end" placeholder="last complete period" /></label>
            <label><input type="checkbox" name="overwrite" /> Overwrite</label>
            <label><input type="checkbox" name="publish" checked /> Publish</label>
            <button type="submit">Ingest</button>
          </form>
          <p id="ingest-result" role="status"></p>
          <script>
            document.getElementById('ingest').addEventListener('submit', async (event) => {
              event.preventDefault();
              const form = event.target;
              const out = document.getElementById('ingest-result');
              const body = {
                dataset_id: form.dataset.source,
                start: form.start.value,
                end: form.end.value || null,
                overwrite: form.overwrite.checked,
                publish: form.publish.checked,
              };
              const response = await fetch('/ingestions', {
                method: 'POST',
                headers: { 'content-type': 'application/json', prefer: 'respond-async' },
                body: JSON.stringify(body),
              });
              const answer = await response.json();
              if (response.status === 202) {
                const link = document.createElement('a');
                link.href = response.headers.get('location');
                link.textContent = 'Ingestion ' + answer.jobID + ' accepted';
                out.replaceChildren(link);
              } else if (response.status === 401 || response.status === 403) {
                const link = document.createElement('a');
                link.href = '/login?return_to=' + encodeURIComponent(location.pathname);
                link.textContent = 'Sign in as a user who may ingest (F_DATASET_MANAGE)';
                out.replaceChildren(link);
              } else {
                out.textContent = 'Refused (' + response.status + '): ' + JSON.stringify(answer.detail);
              }
            });
          </script>`;
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
      <h2>Ingest</h2>
      ${r.itemType === 'feature' && r.ingestable && !readOnly ? refreshHint : form}
      <p class="muted">Also as <a href="/data-sources/${r.dataset_id}?f=json">JSON</a>.</p>`,
  );
}
