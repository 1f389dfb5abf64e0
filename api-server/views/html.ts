/** Minimal server-rendered HTML: every interpolated value goes through `escapeHtml`. */
import { assetUrl } from './assets.ts';

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => entities[c]!);
}

/** A tagged template that escapes every value unless it is already `SafeHtml`. */
export class SafeHtml {
  readonly html: string;
  constructor(html: string) {
    this.html = html;
  }
  toString(): string {
    return this.html;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    const rendered = Array.isArray(value)
      ? value.map((v) => (v instanceof SafeHtml ? v.html : escapeHtml(v))).join('')
      : value instanceof SafeHtml
        ? value.html
        : escapeHtml(value);
    out += rendered + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

/**
 * What a page loads besides the shared stylesheet: asset names (`assets.ts`). Libraries that set a global (Leaflet's
 * `L`) are classic `scripts`; the pages' own scripts are `modules`, each in its own scope. Both are deferred, so they
 * run in this order once the page is parsed.
 */
export interface PageAssets {
  scripts?: string[];
  modules?: string[];
  styles?: string[];
}

/** The assets of several parts of one page, each once, in order. */
export function pageAssets(...parts: PageAssets[]): PageAssets {
  const once = (list: (string[] | undefined)[]) => [...new Set(list.flatMap((names) => names ?? []))];
  return {
    scripts: once(parts.map((p) => p.scripts)),
    modules: once(parts.map((p) => p.modules)),
    styles: once(parts.map((p) => p.styles)),
  };
}

/**
 * The Content-Security-Policy of the pages: scripts, styles and connections only from this server (no inline
 * script or style: pages load theirs as files), images from here, `data:` (the empty icon) and `imageOrigins` (a
 * configured basemap). `represent` sends it with every page.
 */
export function pagePolicy(imageOrigins: string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data:${imageOrigins.map((o) => ` ${o}`).join('')}`,
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function page(title: string, instanceName: string, body: SafeHtml, assets: PageAssets = {}): string {
  const styles = ['stratus.css', ...(assets.styles ?? [])];
  return `<!doctype html>${
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <!-- No icon: otherwise every page load asks for /favicon.ico and logs a 404 in the console. -->
        <link rel="icon" href="data:," />
        <title>${title} · ${instanceName}</title>
        ${styles.map((name) => html`<link rel="stylesheet" href="${assetUrl(name)}" />`)}
        ${(assets.scripts ?? []).map((name) => html`<script src="${assetUrl(name)}" defer></script>`)}
        ${(assets.modules ?? []).map((name) => html`<script type="module" src="${assetUrl(name)}"></script>`)}
      </head>
      <body>
        <header>
          <a href="/">${instanceName}</a>
          <nav>
            <a href="/datasets">Datasets</a><a href="/data-sources">Data sources</a
            ><a href="/collections">Collections</a><a href="/map">Map</a><a href="/docs">API docs</a
            ><a href="/openapi.json">OpenAPI</a>
          </nav>
        </header>
        <main>${body}</main>
      </body>
    </html>`.html
  }`;
}

/** One term of a definition list; a missing value shows as a dash. */
function field(label: string, value: unknown): SafeHtml {
  return html`<dt>${label}</dt>
    <dd>${value ?? '—'}</dd>`;
}

/** The head of a resource's page: its title, its description, and its fields as `[label, value]` pairs. */
export function summary(title: string, description: unknown, fields: [string, unknown][]): SafeHtml {
  return html`<h1>${title}</h1>
    <p>${description ?? ''}</p>
    <dl>${fields.map(([label, value]) => field(label, value))}</dl>`;
}

/** A cell in a monospaced font (ids, periods). */
export const mono = (value: unknown): SafeHtml => html`<span class="mono">${value}</span>`;

/** A table with a header row; each row is a list of already rendered cells. */
export function table(headers: string[], rows: SafeHtml[][]): SafeHtml {
  return html`<table>
    <thead>
      <tr>
        ${headers.map((h) => html`<th>${h}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (cells) =>
          html`<tr>
            ${cells.map((c) => html`<td>${c}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

const pagerLabels: Record<string, string> = { first: 'First page', prev: 'Previous page', next: 'Next page' };

/** The links to a list's other pages (the `first`, `prev` and `next` of its JSON `links`); nothing on a lone page. */
export function pager(links: { href: string; rel: string }[]): SafeHtml {
  const shown = ['first', 'prev', 'next'].flatMap((rel) => links.filter((l) => l.rel === rel));
  return shown.length === 0
    ? html``
    : html`<p class="pager">
        ${shown.map((l) => html`<a rel="${l.rel}" href="${l.href}">${pagerLabels[l.rel]}</a> `)}
      </p>`;
}
