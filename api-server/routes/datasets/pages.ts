import { html, mono, page, pager, summary, table } from '../../views/html.ts';
import type { DatasetRecord } from '../../records/dataset.ts';
import type { DatasetDetailRecord } from './detail.ts';

const covered = (coverage: DatasetRecord['extent']) =>
  `${coverage.temporal.start ?? '—'} … ${coverage.temporal.end ?? '—'}`;

export function datasetListPage(
  instanceName: string,
  records: DatasetRecord[],
  links: { href: string; rel: string }[],
): string {
  const rows = records.map((r) => [
    html`<a href="/datasets/${r.dataset_id}">${r.dataset_name}</a>`,
    mono(r.dataset_id),
    html`${r.itemType}`,
    html`${r.period_type ?? ''}`,
    mono(covered(r.extent)),
    html`${r.publication.status}`,
  ]);
  return page(
    'Datasets',
    instanceName,
    html`<h1>Datasets</h1>
      ${
        records.length === 0
          ? html`<p>No managed dataset yet. Ingest one from a data source.</p>`
          : table(['Name', 'Id', 'Type', 'Period', 'Covered', 'Publication'], rows)
      }
      ${pager(links)}
      <p class="muted">Also as <a href="/datasets?f=json">JSON</a>.</p>`,
  );
}

export function datasetPage(instanceName: string, r: DatasetDetailRecord): string {
  const versions = r.versions.map((v) => [html`${v.created_at}`, html`${v.format}`, mono(covered(v.coverage))]);
  return page(
    r.dataset_name,
    instanceName,
    html`${summary(r.dataset_name, r.description, [
        ['Id', r.dataset_id],
        ['Source', r.source_dataset_id],
        ['Variable', r.variable],
        ['Units', r.units],
        ['Period', r.period_type],
        ['Covered', covered(r.extent)],
        ['License', r.license],
        ['Publication', r.publication.status],
        ['Last updated', r.last_updated],
      ])}
      <h2>Access</h2>
      <ul>
        ${r.links.map((l) => html`<li><a href="${l.href}">${l.title}</a></li>`)}
      </ul>
      <h2>Versions</h2>
      ${versions.length === 0 ? html`<p>Not materialized yet.</p>` : table(['Created', 'Format', 'Covered'], versions)}
      <p class="muted">Also as <a href="/datasets/${r.dataset_id}?f=json">JSON</a>.</p>`,
  );
}
