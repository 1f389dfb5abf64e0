import { field, html, page } from '../../views/html.ts';
import type { DataSourceRecord } from './record.ts';

export function dataSourceListPage(instanceName: string, records: DataSourceRecord[]): string {
  const fetchable = records.filter((r) => r.ingestable);
  return page(
    'Data sources',
    instanceName,
    html`<h1>Data sources</h1>
      ${
        fetchable.length === 0
          ? html`<p>This instance has no provider for any data source.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Id</th>
                  <th>Type</th>
                  <th>Period</th>
                  <th>Units</th>
                </tr>
              </thead>
              <tbody>
                ${fetchable.map(
                  (r) =>
                    html`<tr>
                      <td><a href="/data-sources/${r.dataset_id}">${r.dataset_name}</a></td>
                      <td class="mono">${r.dataset_id}</td>
                      <td>${r.itemType}</td>
                      <td>${r.period_type ?? ''}</td>
                      <td>${r.units ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
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
              } else {
                out.textContent = 'Refused (' + response.status + '): ' + JSON.stringify(answer.detail);
              }
            });
          </script>`;
  return page(
    r.dataset_name,
    instanceName,
    html`<h1>${r.dataset_name}</h1>
      <p>${r.description ?? ''}</p>
      <dl>
        ${[
          field('Id', r.dataset_id),
          field('Type', r.itemType),
          field('Variable', r.variable),
          field('Units', r.units),
          field('Period', r.period_type),
          field('Resolution', r.resolution),
          field('Source', r.source),
          field('License', r.license),
          field('Provider', r.provider),
        ]}
      </dl>
      <h2>Ingest</h2>
      ${r.itemType === 'feature' && r.ingestable && !readOnly ? refreshHint : form}
      <p class="muted">Also as <a href="/data-sources/${r.dataset_id}?f=json">JSON</a>.</p>`,
  );
}
