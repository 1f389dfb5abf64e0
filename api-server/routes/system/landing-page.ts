import type { InstanceConfig } from '../../../core/config/index.ts';
import { html, page } from '../../views/html.ts';

export function landingPage(config: InstanceConfig, links: { href: string; title: string }[]): string {
  const [xmin, ymin, xmax, ymax] = config.instance.bbox;
  return page(
    'Home',
    config.instance.name,
    html`<h1>${config.instance.name}</h1>
      <p>${config.instance.description ?? 'Climate and earth-observation data for one country or region.'}</p>
      <h2>Extent</h2>
      <dl>
        <dt>Bounding box</dt>
        <dd class="mono">${xmin}, ${ymin}, ${xmax}, ${ymax}</dd>
        <dt>CRS</dt>
        <dd class="mono">${config.instance.crs}</dd>
        <dt>Mode</dt>
        <dd>${config.readOnly ? 'read-only' : 'read-write'}</dd>
      </dl>
      <h2>Explore</h2>
      <ul>
        ${links.map((l) => html`<li><a href="${l.href}">${l.title}</a> <span class="muted mono">${l.href}</span></li>`)}
      </ul>`,
  );
}
