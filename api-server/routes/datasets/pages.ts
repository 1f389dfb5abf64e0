import { html, mono, page, pageAssets, pager, summary, table } from '../../views/html.ts';
import { MAP_ASSETS, mapViewer, type MapChoices } from '../../views/map.ts';
import { RUN_ASSETS, runForm, runStarter, type RunAccess } from '../../views/runs.ts';
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

/**
 * A dataset's page: its record, its thumbnail, the map viewer on its tiles (when its served version has tiles),
 * and a sync form whose run's progress `runs.js` follows.
 */
export function datasetPage(
  instanceName: string,
  r: DatasetDetailRecord,
  choices: MapChoices,
  runs: RunAccess,
): string {
  const thumbnail = r.links.find((l) => l.rel === 'preview');
  const tiled = choices.datasets.some((d) => d.id === r.dataset_id);
  const sync = runStarter(runs, `/datasets/${r.dataset_id}`, () =>
    runForm(
      `/sync/${r.dataset_id}`,
      'Sync to the newest period',
      html`<label><input type="checkbox" name="publish" checked /> Publish</label>`,
    ),
  );
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
      ${
        thumbnail
          ? html`<h2>Preview</h2>
              <img class="thumbnail" src="${thumbnail.href}" alt="${r.dataset_name}: the newest period" />`
          : ''
      }
      ${
        tiled
          ? html`<h2>Map</h2>
              ${mapViewer({ ...choices, selectedDataset: r.dataset_id })}
              <p><a href="/map?dataset=${r.dataset_id}">Open on the map page</a></p>`
          : ''
      }
      <h2>Sync</h2>
      ${sync}
      <h2>Access</h2>
      <ul>
        ${r.links.map((l) => html`<li><a href="${l.href}">${l.title}</a></li>`)}
      </ul>
      <h2>Versions</h2>
      ${versions.length === 0 ? html`<p>Not materialized yet.</p>` : table(['Created', 'Format', 'Covered'], versions)}
      <p class="muted">Also as <a href="/datasets/${r.dataset_id}?f=json">JSON</a>.</p>`,
    pageAssets(tiled ? MAP_ASSETS : {}, runs === 'allowed' ? RUN_ASSETS : {}),
  );
}
