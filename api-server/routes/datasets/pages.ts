import { field, html, page } from '../../views/html.ts';
import type { DatasetRecord } from '../../records/dataset.ts';
import type { DatasetDetailRecord } from './detail.ts';

const period = (r: DatasetRecord) => `${r.extent.temporal.start ?? '—'} … ${r.extent.temporal.end ?? '—'}`;

export function datasetListPage(instanceName: string, records: DatasetRecord[]): string {
  const rows = records.map(
    (r) =>
      html`<tr>
        <td><a href="/datasets/${r.dataset_id}">${r.dataset_name}</a></td>
        <td class="mono">${r.dataset_id}</td>
        <td>${r.itemType}</td>
        <td>${r.period_type ?? ''}</td>
        <td class="mono">${period(r)}</td>
        <td>${r.publication.status}</td>
      </tr>`,
  );
  return page(
    'Datasets',
    instanceName,
    html`<h1>Datasets</h1>
      ${
        records.length === 0
          ? html`<p>No managed dataset yet. Ingest one from a data source.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Id</th>
                  <th>Type</th>
                  <th>Period</th>
                  <th>Covered</th>
                  <th>Publication</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>`
      }
      <p class="muted">Also as <a href="/datasets?f=json">JSON</a>.</p>`,
  );
}

export function datasetPage(instanceName: string, r: DatasetDetailRecord): string {
  return page(
    r.dataset_name,
    instanceName,
    html`<h1>${r.dataset_name}</h1>
      <p>${r.description ?? ''}</p>
      <dl>
        ${[
          field('Id', r.dataset_id),
          field('Source', r.source_dataset_id),
          field('Variable', r.variable),
          field('Units', r.units),
          field('Period', r.period_type),
          field('Covered', period(r)),
          field('License', r.license),
          field('Publication', r.publication.status),
          field('Last updated', r.last_updated),
        ]}
      </dl>
      <h2>Access</h2>
      <ul>
        ${r.links.map((l) => html`<li><a href="${l.href}">${l.title}</a></li>`)}
      </ul>
      <h2>Versions</h2>
      ${
        r.versions.length === 0
          ? html`<p>Not materialized yet.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th>Created</th>
                  <th>Format</th>
                  <th>Covered</th>
                </tr>
              </thead>
              <tbody>
                ${r.versions.map(
                  (v) =>
                    html`<tr>
                      <td>${v.created_at}</td>
                      <td>${v.format}</td>
                      <td class="mono">${v.coverage.temporal.start ?? '—'} … ${v.coverage.temporal.end ?? '—'}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
      <p class="muted">Also as <a href="/datasets/${r.dataset_id}?f=json">JSON</a>.</p>`,
  );
}
