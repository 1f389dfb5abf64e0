import { colorAt, colormapNames } from '../../core/render/colormap.ts';
import type { InstanceConfig } from '../../core/config/index.ts';
import { assetUrl, OUTLINES_ASSET } from './assets.ts';
import { html, type PageAssets, type SafeHtml } from './html.ts';

/** The scripts and styles a page with a map loads (Leaflet and topojson-client from npm, then `map.js`). */
export const MAP_ASSETS: PageAssets = {
  scripts: ['leaflet/leaflet.js', 'topojson-client/topojson-client.min.js'],
  modules: ['map.js'],
  styles: ['leaflet/leaflet.css'],
};

/** An AnalyticsTable that serves a version: the org units of `collection` coloured by a period's value of `dataset`. */
/** A period a table's served version holds. */
export interface ServedPeriod {
  /** The DHIS2 period id (`202401`). */
  id: string;
  /** Its ISO form (`2024-01`). */
  name: string;
}

export interface MapTable {
  id: string;
  dataset: string;
  collection: string;
  statistics: string[];
  /** Per period type of the table, its periods (DHIS2 id and readable name), oldest first. */
  periods: Record<string, ServedPeriod[]>;
}

export interface MapChoices {
  /** Datasets with tiles: a served Zarr or Icechunk version. */
  datasets: { id: string; name: string; units: string | null }[];
  /** Published feature collections. */
  collections: { id: string; name: string }[];
  /** Analytics tables with a served version. */
  tables: MapTable[];
  selectedDataset?: string;
  selectedCollection?: string;
  /** Where the map opens: the instance's extent. */
  bbox: [number, number, number, number];
  basemap: InstanceConfig['map']['basemap'];
  /** Whether the caller may compute series (`POST /result`); otherwise a click offers to sign in. */
  series: boolean;
}

/** Nine evenly spaced colours of each colour map, the stops of the legend's gradient (`colormap.ts` decides them). */
const COLORMAP_STOPS = JSON.stringify(
  Object.fromEntries(colormapNames.map((name) => [name, [...Array(9).keys()].map((i) => colorAt(name, i / 8))])),
);

const option = (value: string, label: string, selected: string | undefined) =>
  value === selected
    ? html`<option value="${value}" selected>${label}</option>`
    : html`<option value="${value}">${label}</option>`;

/**
 * The map viewer, which `map.js` brings to life from the data attributes: a dataset's tiles with a period slider
 * and a legend, a feature collection's boundaries, coloured by an analytics table's values when one exists for the
 * two, and the series of the boundary clicked, plotted below.
 */
export function mapViewer(choices: MapChoices): SafeHtml {
  const { datasets, collections, tables, selectedDataset, selectedCollection, bbox, basemap, series } = choices;
  return html`<section
    id="map-viewer"
    data-colormaps="${COLORMAP_STOPS}"
    data-bbox="${bbox.join(',')}"
    data-basemap-url="${basemap?.url ?? ''}"
    data-basemap-attribution="${basemap?.attribution ?? ''}"
    data-outlines-url="${assetUrl(OUTLINES_ASSET)}"
    data-series-allowed="${series}"
    data-tables="${JSON.stringify(tables)}"
  >
    <div class="map-controls">
      <label
        >Dataset
        <select id="map-dataset">
          ${option('', 'None', selectedDataset ?? '')}
          ${datasets.map((d) =>
            d.id === selectedDataset
              ? html`<option value="${d.id}" data-units="${d.units ?? ''}" selected>${d.name}</option>`
              : html`<option value="${d.id}" data-units="${d.units ?? ''}">${d.name}</option>`,
          )}
        </select></label
      >
      <label
        >Period <input id="map-time" type="range" min="0" max="0" step="1" value="0" disabled />
        <output id="map-period" for="map-time"></output
      ></label>
      <label
        >Boundaries
        <select id="map-collection">
          ${option('', 'None', selectedCollection ?? '')}
          ${collections.map((c) => option(c.id, c.name, selectedCollection))}
        </select></label
      >
    </div>
    <div id="map-table-controls" class="map-controls" hidden>
      <label
        >Analytics table
        <select id="map-table"></select
      ></label>
      <label
        >Period type
        <select id="map-period-type"></select
      ></label>
      <label
        >Period
        <select id="map-table-period"></select
      ></label>
      <label
        >Statistic
        <select id="map-stat"></select
      ></label>
    </div>
    <div id="map-legend" class="legend" hidden>
      <span id="map-legend-min"></span>
      <div class="ramp" id="map-legend-ramp"></div>
      <span id="map-legend-max"></span>
      <span id="map-legend-units"></span>
    </div>
    <div id="map-classes" class="legend classes-legend" hidden>
      <ul id="map-classes-list" class="classes"></ul>
      <span id="map-classes-units"></span>
    </div>
    <div id="map" class="map"></div>
    <div id="map-series" class="series" aria-live="polite">
      <p class="muted">
        Choose a dataset, then click a place or a boundary to plot the dataset's values there over time.
      </p>
    </div>
  </section>`;
}
