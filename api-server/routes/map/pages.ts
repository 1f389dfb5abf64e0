import { html, page } from '../../views/html.ts';
import { MAP_ASSETS, mapViewer, type MapChoices } from '../../views/map.ts';

export function mapPage(instanceName: string, choices: MapChoices): string {
  return page(
    'Map',
    instanceName,
    html`<h1>Map</h1>
      ${mapViewer(choices)}
      <p class="muted">
        Tiles from <code>/datasets/{id}/tiles/{z}/{x}/{y}.png</code>, boundaries from
        <code>/features/{id}/data.geojson</code>, series from <code>POST /result</code> or, with an analytics table,
        <code>/analytics/{table}</code>.
      </p>`,
    MAP_ASSETS,
  );
}
