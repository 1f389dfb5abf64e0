/** Minimal server-rendered HTML: every interpolated value goes through `escapeHtml`. */

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

const style = `
  :root { color-scheme: light dark; --accent: #1f6feb; }
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; }
  header { background: #0b3d5c; color: #fff; padding: 1rem 2rem; }
  header a { color: #fff; text-decoration: none; font-weight: 600; }
  nav a { color: #cfe3f3; margin-left: 1.25rem; }
  main { max-width: 64rem; margin: 2rem auto; padding: 0 1.5rem; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #8884; }
  code, .mono { font-family: ui-monospace, monospace; font-size: .9em; }
  .muted { opacity: .7; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1.5rem; }
  dt { font-weight: 600; }
`;

export function page(title: string, instanceName: string, body: SafeHtml): string {
  return `<!doctype html>${
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <!-- No icon: otherwise every page load asks for /favicon.ico and logs a 404 in the console. -->
        <link rel="icon" href="data:," />
        <title>${title} · ${instanceName}</title>
        <style>
          ${new SafeHtml(style)}
        </style>
      </head>
      <body>
        <header>
          <a href="/">${instanceName}</a>
          <nav>
            <a href="/datasets">Datasets</a><a href="/data-sources">Data sources</a
            ><a href="/collections">Collections</a><a href="/docs">API docs</a><a href="/openapi.json">OpenAPI</a>
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
