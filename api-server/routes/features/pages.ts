import type { FeatureCollectionRecord } from '../../records/feature-collection.ts';
import { html, page } from '../../views/html.ts';
import { MAP_ASSETS, mapViewer, type MapChoices } from '../../views/map.ts';

/** A feature collection's page: its record, and its boundaries on the map (over a dataset, if one is chosen). */
export function featureCollectionPage(
  instanceName: string,
  r: FeatureCollectionRecord,
  /** The map's choices; none for an unpublished collection, whose boundaries are not served. */
  choices: MapChoices | undefined,
): string {
  const { xmin, ymin, xmax, ymax } = r.extent.spatial_wgs84 ?? r.extent.spatial;
  return page(
    r.name,
    instanceName,
    html`<h1>${r.name}</h1>
      <p>${r.description ?? ''}</p>
      <dl>
        <dt>Id</dt>
        <dd class="mono">${r.id}</dd>
        <dt>Features</dt>
        <dd>${r.feature_count}</dd>
        <dt>Identified by</dt>
        <dd class="mono">${r.id_property}</dd>
        <dt>Geometry</dt>
        <dd>${r.geometry_types.join(', ') || '—'} (${r.crs})</dd>
        <dt>Bounds</dt>
        <dd class="mono">${[xmin, ymin, xmax, ymax].join(', ')}</dd>
        <dt>License</dt>
        <dd>${r.license}</dd>
        <dt>Attribution</dt>
        <dd>${r.attribution ?? '—'}</dd>
        <dt>Last updated</dt>
        <dd>${r.last_updated}</dd>
      </dl>
      <h2>Boundaries</h2>
      ${choices ? mapViewer(choices) : html`<p>Not published: its boundaries are not served, so there is no map.</p>`}
      <p class="muted">
        Also as <a href="/features/${r.id}?f=json">JSON</a>${
          choices
            ? html`, <a href="/features/${r.id}/data.geojson">GeoJSON</a> and
                <a href="/features/${r.id}/data.parquet">GeoParquet</a>`
            : ''
        }.
      </p>`,
    choices ? MAP_ASSETS : {},
  );
}
