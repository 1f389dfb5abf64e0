import { html, mono, page, pager, summary, table } from '../../views/html.ts';
import type { StacCollection } from '../../services/catalogue/stac.ts';
import type { ProcessDescription } from './process-catalogue.ts';

export function collectionListPage(
  instanceName: string,
  collections: StacCollection[],
  links: { href: string; rel: string }[],
): string {
  const rows = collections.map((c) => [
    html`<a href="/collections/${c.id}">${c.title}</a>`,
    mono(c.id),
    html`${c.license}`,
  ]);
  return page(
    'Collections',
    instanceName,
    html`<h1>Collections</h1>
      ${collections.length === 0 ? html`<p>No published collection yet.</p>` : table(['Title', 'Id', 'License'], rows)}
      ${pager(links)}
      <p class="muted">
        Also as <a href="/collections?f=json">JSON</a>; the STAC catalogue is at
        <a href="/stac/catalog.json">/stac/catalog.json</a>.
      </p>`,
  );
}

export function collectionPage(instanceName: string, c: StacCollection): string {
  const [interval] = c.extent.temporal.interval;
  const [bbox] = c.extent.spatial.bbox;
  const assets = Object.entries(c.assets).map(
    ([key, a]) => html`<li><a href="${a.href}">${a.title}</a> <span class="muted mono">${key} · ${a.type}</span></li>`,
  );
  return page(
    c.title,
    instanceName,
    html`${summary(c.title, c.description, [
        ['Id', c.id],
        ['License', c.license],
        ['Keywords', c.keywords.join(', ')],
        ['Bounding box', bbox?.join(', ')],
        ['Time', interval ? `${interval[0] ?? '…'} / ${interval[1] ?? '…'}` : undefined],
      ])}
      <h2>Assets</h2>
      <ul>
        ${assets}
      </ul>
      <p class="muted">
        Also as <a href="/collections/${c.id}?f=json">openEO JSON</a> and <a href="/stac/collections/${c.id}">STAC</a>;
        the dataset record is at <a href="/datasets/${c.id}">/datasets/${c.id}</a>. All
        <a href="/collections">collections</a>.
      </p>`,
  );
}

export function processListPage(instanceName: string, processes: ProcessDescription[]): string {
  return page(
    'Processes',
    instanceName,
    html`<h1>Processes</h1>
      ${
        processes.length === 0
          ? html`<p>This backend runs no openEO process yet: there is no processing engine in this release.</p>`
          : html`<ul>
              ${processes.map(
                (p) => html`<li><a href="/processes/${p.id}">${p.id}</a> <span class="muted">${p.summary}</span></li>`,
              )}
            </ul>`
      }
      <p class="muted">Also as <a href="/processes?f=json">JSON</a>.</p>`,
  );
}

export function processPage(instanceName: string, p: ProcessDescription): string {
  return page(
    p.id,
    instanceName,
    html`<h1 class="mono">${p.id}</h1>
      <p>${p.summary}</p>
      <pre>${String(p.description ?? '')}</pre>
      <p class="muted">
        Also as <a href="/processes/${p.id}?f=json">JSON</a>. All <a href="/processes">processes</a>.
      </p>`,
  );
}
