import type { InstanceConfig } from '../../../core/config/index.ts';
import { html, mono, page, table, type SafeHtml } from '../../views/html.ts';
import type { HomeOverview, Visitor } from './home.ts';
import { clientSnippets } from './snippets.ts';

/** The script that adds a copy button to each snippet (`assets/home.js`). */
const HOME_ASSETS = { modules: ['home.js'] };

/** The dataset the snippets name when the instance has none with tiles yet. */
const PLACEHOLDER_DATASET = '<dataset id>';

function signInState(visitor: Visitor): SafeHtml {
  if (visitor.kind === 'open') return html`<p>This instance is open: reading and running need no sign-in.</p>`;
  if (visitor.kind === 'signed-in')
    return html`<p>Signed in as <strong>${visitor.username}</strong>. <a href="/logout">Sign out</a></p>`;
  return html`<p>Not signed in. <a href="/login?return_to=%2F">Sign in</a></p>`;
}

function datasetsSection(datasets: NonNullable<HomeOverview['data']>['datasets']): SafeHtml {
  if (datasets.length === 0)
    return html`<p>No dataset yet: ingest one from a <a href="/data-sources">data source</a>.</p>`;
  return table(
    ['Preview', 'Dataset', 'Coverage', 'Last update'],
    datasets.map((d) => {
      const preview = d.links.find((l) => l.rel === 'preview');
      return [
        preview
          ? html`<img class="preview" src="${preview.href}" alt="${d.dataset_name}: the newest period" />`
          : html``,
        html`<a href="/datasets/${d.dataset_id}">${d.dataset_name}</a>`,
        mono(`${d.extent.temporal.start ?? '—'} … ${d.extent.temporal.end ?? '—'}`),
        mono(d.last_updated),
      ];
    }),
  );
}

function runsSection(runs: NonNullable<HomeOverview['data']>['runs']): SafeHtml {
  if (runs.length === 0) return html`<p>No run yet.</p>`;
  return table(
    ['Run', 'Process', 'Of', 'Status', 'Progress'],
    runs.map((r) => [
      html`<a href="/ingestions/jobs/${r.jobID}">${r.jobID}</a>`,
      html`${r.processID}`,
      mono(r.target),
      html`<span class="run-status" data-status="${r.status}">${r.status}</span>`,
      r.progress
        ? html`<progress max="100" value="${r.progress.percent}"></progress> ${Math.round(r.progress.percent)} %`
        : html`—`,
    ]),
  );
}

/**
 * The home page, `/` as HTML: the instance's datasets with a preview, its latest runs, its feature collections,
 * who is signed in, and snippets with this instance's public URL for the usual clients.
 */
export function landingPage(config: InstanceConfig, overview: HomeOverview): string {
  const { baseUrl, visitor, data } = overview;
  const example = data?.tiled[0]?.id ?? PLACEHOLDER_DATASET;
  return page(
    'Home',
    config.instance.name,
    html`<h1>${config.instance.name}</h1>
      <p>${config.instance.description ?? 'Climate and earth-observation data for one country or region.'}</p>
      ${signInState(visitor)}
      ${
        data
          ? html`<h2>Datasets</h2>
              ${datasetsSection(data.datasets)}
              <p><a href="/map">Open the map</a> · <a href="/datasets">All datasets</a></p>
              <h2>Latest runs</h2>
              ${runsSection(data.runs)}
              <p><a href="/ingestions">All runs (JSON)</a></p>
              <h2>Feature collections</h2>
              ${
                data.collections.length === 0
                  ? html`<p>No published feature collection yet.</p>`
                  : html`<ul>
                      ${data.collections.map((c) => html`<li><a href="/features/${c.id}">${c.name}</a></li>`)}
                    </ul>`
              }`
          : html`<p>This instance’s data needs a signed-in user.</p>`
      }
      <h2>Use it from your tools</h2>
      <p>This instance is at <span class="mono">${baseUrl}</span>.</p>
      ${clientSnippets(baseUrl, example).map(
        (s) =>
          html`<section class="snippet">
            <h3>${s.title}</h3>
            <p class="muted">${s.note}</p>
            <pre id="snippet-${s.id}" data-snippet><code>${s.code}</code></pre>
          </section>`,
      )}
      <h2>More</h2>
      <p>
        <a href="/docs">Interactive API documentation</a> · <a href="/openapi.json">OpenAPI</a> ·
        <a href="/stac/catalog.json">STAC catalogue</a> · <a href="/processes">openEO processes</a> ·
        <a href="/?f=json">This document as JSON</a>
      </p>`,
    HOME_ASSETS,
  );
}
