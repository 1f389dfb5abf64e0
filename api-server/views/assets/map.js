/*
 * The map viewer (views/map.ts; docs/map.md): Leaflet (from npm, served by this server) shows a dataset's tiles
 * with a period slider and a legend, a feature collection's boundaries from its GeoJSON, and, for the boundary
 * clicked (or the place, off the boundaries), the dataset's mean over it for every period, computed by `POST /result` and drawn as an SVG plot.
 * When an analytics table exists for the dataset and the boundaries shown, the boundaries are coloured by one of its
 * periods' values (`GET /analytics/{table}`) in quantile classes with a legend, and a clicked boundary's plot is the
 * table's series of it instead of a computation.
 * Below a boundary's plot, a button downloads the dataset's monthly means over every boundary of the collection as
 * CHAP CSV (the predefined process `aggregate_to_chap_csv`).
 * State for tests and assistive tools is in data attributes of #map-viewer: `data-tiles` (loading, ready),
 * `data-period`, `data-outlines` (the country count, once drawn), `data-boundaries` (the feature count), `data-series` (loading, ready, refused, failed),
 * `data-choropleth` (loading, ready, failed; absent when no table colours the boundaries); the plot's
 * `<svg>` carries its `data-labels` and `data-values` (JSON); the download button its `data-download` (loading,
 * ready, failed).
 */
/* global document, fetch, location, setTimeout, URL, L, topojson */

const SVG = 'http://www.w3.org/2000/svg';
// The fill colour is explicit: Leaflet keeps a class colour set before otherwise.
const BOUNDARY = { color: '#d9480f', fillColor: '#d9480f', weight: 1.5, fillOpacity: 0.05 };
const SELECTED = { color: '#d9480f', fillColor: '#d9480f', weight: 3, fillOpacity: 0.2 };
const OUTLINE = { color: '#868e96', weight: 0.8, fill: false, interactive: false };
/** The fill of an org unit the table has no value of, for the period and statistic shown. */
const NO_DATA = '#adb5bd';
/** The most classes of a coloured map: few enough to tell apart, enough to show a gradient. */
const CLASSES = 5;

const root = document.getElementById('map-viewer');
if (root) start(root);

function start(root) {
  const colormaps = JSON.parse(root.dataset.colormaps);
  const [west, south, east, north] = root.dataset.bbox.split(',').map(Number);
  const datasetSelect = document.getElementById('map-dataset');
  const collectionSelect = document.getElementById('map-collection');
  const slider = document.getElementById('map-time');
  const periodOut = document.getElementById('map-period');
  const legend = document.getElementById('map-legend');
  const series = document.getElementById('map-series');
  const tables = JSON.parse(root.dataset.tables);
  // The analytics table's controls and its legend of classes.
  const [tableControls, tableSelect, periodTypeSelect, tablePeriodSelect, statSelect, classesLegend] = [
    'map-table-controls',
    'map-table',
    'map-period-type',
    'map-table-period',
    'map-stat',
    'map-classes',
  ].map((id) => document.getElementById(id));

  // No fade: a period's tiles replace the previous ones at once while the slider moves. Quarter zoom steps, so
  // that the instance's extent fills the map.
  const map = L.map('map', { fadeAnimation: false, zoomSnap: 0.25 }).fitBounds([
    [south, west],
    [north, east],
  ]);
  if (root.dataset.basemapUrl)
    L.tileLayer(root.dataset.basemapUrl, { attribution: root.dataset.basemapAttribution }).addTo(map);
  drawOutlines(map, root);

  /**
   * What is shown: the dataset (id, TileJSON, layer), the boundaries layer and its collection, the analytics table
   * chosen and the colour of each org unit it fills, the feature plotted and the feature collection it is a boundary
   * of (none for a place).
   */
  const state = {
    dataset: undefined,
    tilejson: undefined,
    layer: undefined,
    boundaries: undefined,
    boundariesOf: undefined,
    table: undefined,
    fills: undefined,
    feature: undefined,
    collection: undefined,
  };

  /** A boundary's style: filled with its class colour while a table colours the map. */
  const styleOf = (feature) =>
    state.fills
      ? { ...BOUNDARY, fillColor: state.fills.get(String(feature.id)) ?? NO_DATA, fillOpacity: 0.75 }
      : BOUNDARY;
  const selectedStyleOf = (feature) => ({
    ...styleOf(feature),
    weight: SELECTED.weight,
    ...(!state.fills && SELECTED),
  });
  /** Whether `feature` is the boundary plotted: it stays drawn as selected whatever colours the map. */
  const isPlotted = (feature) =>
    state.collection !== undefined && state.collection === state.boundariesOf && state.feature?.id === feature.id;
  const boundaryStyleOf = (feature) => (isPlotted(feature) ? selectedStyleOf(feature) : styleOf(feature));
  const restyle = () => {
    state.boundaries?.setStyle(boundaryStyleOf);
    state.boundaries?.eachLayer((layer) => isPlotted(layer.feature) && layer.bringToFront());
  };

  const periodOf = () => state.tilejson.periods[Number(slider.value)];
  const tileUrl = () =>
    `/datasets/${encodeURIComponent(state.dataset)}/tiles/{z}/{x}/{y}.png?time=${encodeURIComponent(periodOf())}`;

  async function showDataset(id) {
    state.layer?.remove();
    Object.assign(state, { dataset: undefined, tilejson: undefined, layer: undefined });
    legend.hidden = true;
    slider.disabled = true;
    periodOut.value = '';
    delete root.dataset.tiles;
    delete root.dataset.period;
    if (!id) return;
    const tilejson = await getJson(`/datasets/${encodeURIComponent(id)}/tiles.json`);
    // Another dataset (or none) was chosen while this one's TileJSON came: that choice is the one to show.
    if (datasetSelect.value !== id) return;
    Object.assign(state, { dataset: id, tilejson });
    slider.max = String(tilejson.periods.length - 1);
    slider.value = slider.max;
    slider.disabled = tilejson.periods.length < 2;
    const [w, s, e, n] = tilejson.bounds;
    // Only tiles over the dataset's extent are asked for: the others are 404.
    state.layer = L.tileLayer(tileUrl(), {
      bounds: L.latLngBounds([s, w], [n, e]),
      minZoom: tilejson.minzoom,
      maxNativeZoom: tilejson.maxzoom,
      opacity: 0.9,
    });
    state.layer.on('loading', () => (root.dataset.tiles = 'loading'));
    state.layer.on('load', () => (root.dataset.tiles = 'ready'));
    state.layer.addTo(map);
    showPeriod();
    showLegend(tilejson, datasetSelect.selectedOptions[0]?.dataset.units ?? '');
    if (state.feature) plot(state.feature, state.collection);
  }

  function showPeriod() {
    const period = periodOf();
    periodOut.value = period;
    root.dataset.period = period;
    state.layer.setUrl(tileUrl());
  }

  function showLegend(tilejson, units) {
    const stops = colormaps[tilejson.colormap] ?? colormaps.viridis;
    const ramp = document.getElementById('map-legend-ramp');
    // CSSOM, not a style attribute: the page's policy allows no inline style.
    ramp.style.background = `linear-gradient(to right, ${stops
      .map(([r, g, b], i) => `rgb(${r}, ${g}, ${b}) ${(i * 100) / (stops.length - 1)}%`)
      .join(', ')})`;
    const [min, max] = tilejson.range ?? [undefined, undefined];
    const suffix = units && units !== '1' ? ` ${units}` : '';
    document.getElementById('map-legend-min').textContent = min === undefined ? 'lowest' : `${min}${suffix}`;
    document.getElementById('map-legend-max').textContent =
      max === undefined ? "highest of the period's values" : `${max}${suffix}`;
    // '1' is the CF units of a dimensionless quantity.
    document.getElementById('map-legend-units').textContent =
      units === '1' ? 'Units: 1 (dimensionless)' : units ? `Units: ${units}` : 'Units not given';
    legend.dataset.colormap = tilejson.colormap;
    legend.hidden = false;
  }

  async function showBoundaries(id) {
    state.boundaries?.remove();
    Object.assign(state, { boundaries: undefined, boundariesOf: undefined });
    delete root.dataset.boundaries;
    if (!id) return;
    const collection = await getJson(`/features/${encodeURIComponent(id)}/data.geojson`);
    if (collectionSelect.value !== id) return;
    state.boundariesOf = id;
    state.boundaries = L.geoJSON(collection, {
      style: boundaryStyleOf,
      onEachFeature: (feature, layer) => {
        layer.bindTooltip(String(feature.properties.name ?? feature.id ?? ''));
        layer.on('click', (event) => {
          // The boundary's series, not the place's under it.
          L.DomEvent.stop(event);
          state.place?.remove();
          plot(feature, id);
          restyle();
        });
      },
    }).addTo(map);
    state.boundaries.eachLayer((layer) => layer.getElement()?.setAttribute('data-feature-id', layer.feature.id));
    root.dataset.boundaries = String(collection.features.length);
    await colourBoundaries();
  }

  /** Replaces a select's options; `selected`: the value chosen. */
  function offer(select, options, selected) {
    select.replaceChildren(
      ...options.map(({ value, label }) => {
        const option = document.createElement('option');
        option.value = value;
        option.textContent = label;
        option.selected = value === selected;
        return option;
      }),
    );
  }

  /** The tables of the dataset and collection chosen; the one chosen before stays, else the first. */
  function offerTables() {
    const offered = tables.filter((t) => t.dataset === datasetSelect.value && t.collection === collectionSelect.value);
    const kept = offered.some((t) => t.id === tableSelect.value) ? tableSelect.value : (offered[0]?.id ?? '');
    offer(tableSelect, [{ value: '', label: 'None' }, ...offered.map((t) => ({ value: t.id, label: t.id }))], kept);
    tableControls.hidden = offered.length === 0;
    return chooseTable();
  }

  /** The chosen table's period types and statistics, by default its first period type and `mean`. */
  function chooseTable() {
    state.table = tables.find((t) => t.id === tableSelect.value);
    const types = state.table ? Object.keys(state.table.periods) : [];
    const statistics = state.table?.statistics ?? [];
    offer(
      periodTypeSelect,
      types.map((type) => ({ value: type, label: type })),
      types[0],
    );
    offer(
      statSelect,
      statistics.map((stat) => ({ value: stat, label: stat })),
      statistics.includes('mean') ? 'mean' : statistics[0],
    );
    return choosePeriodType();
  }

  /** The periods of the chosen type, the newest chosen. */
  function choosePeriodType() {
    const periods = state.table?.periods[periodTypeSelect.value] ?? [];
    offer(
      tablePeriodSelect,
      periods.map((p) => ({ value: p.id, label: p.name })),
      periods.at(-1)?.id,
    );
    return showTableChoice();
  }

  function showTableChoice() {
    if (state.feature && state.collection) plot(state.feature, state.collection).catch(report);
    return colourBoundaries();
  }

  /**
   * Fills each boundary with the class of its value in the chosen period and statistic of the table (one request,
   * every org unit), and shows the classes in the legend; without a table, the boundaries are outlines again.
   */
  async function colourBoundaries() {
    const table = state.table;
    const [pe, stat] = [tablePeriodSelect.value, statSelect.value];
    if (!table || !pe || state.boundariesOf !== table.collection) {
      state.fills = undefined;
      classesLegend.hidden = true;
      delete root.dataset.choropleth;
      restyle();
      return;
    }
    root.dataset.choropleth = 'loading';
    const answer = await getJson(
      `/analytics/${encodeURIComponent(table.id)}?pe=${encodeURIComponent(pe)}&stat=${encodeURIComponent(stat)}`,
    );
    // Another choice came while this answer was on its way: that one is shown.
    if (state.table !== table || tablePeriodSelect.value !== pe || statSelect.value !== stat) return;
    const values = valuesBy(answer, 'ou');
    const classes = quantileClasses([...values.values()]);
    const stops = colormaps.viridis;
    classes.forEach((c, i) => {
      const [r, g, b] = stops[classes.length === 1 ? 4 : Math.round((i * (stops.length - 1)) / (classes.length - 1))];
      c.color = `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
    });
    state.fills = new Map(
      [...values].map(([ou, value]) => [ou, classes.find((c) => value <= c.upper)?.color ?? classes.at(-1).color]),
    );
    restyle();
    showClasses(classes, stat);
    root.dataset.choropleth = 'ready';
  }

  function showClasses(classes, stat) {
    const units = stat === 'count' ? 'days' : (datasetSelect.selectedOptions[0]?.dataset.units ?? '');
    const suffix = units && units !== '1' ? ` ${units}` : '';
    const item = (color, text, data) => {
      const li = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      // CSSOM, not a style attribute: the page's policy allows no inline style.
      swatch.style.background = color;
      li.append(swatch, text);
      Object.assign(li.dataset, { color, ...data });
      return li;
    };
    document
      .getElementById('map-classes-list')
      .replaceChildren(
        ...classes.map((c) =>
          item(c.color, `${round(c.lower)} – ${round(c.upper)}${suffix}`, { lower: c.lower, upper: c.upper }),
        ),
        item(NO_DATA, 'No data', { noData: '' }),
      );
    document.getElementById('map-classes-units').textContent =
      `${stat} of ${periodTypeSelect.value} period ${tablePeriodSelect.selectedOptions[0]?.textContent ?? ''}, quantile classes`;
    classesLegend.hidden = false;
  }

  /**
   * The dataset's mean over the feature's geometry for every period, by `POST /result`, then plotted; for a boundary
   * of `collection`, with the collection's CHAP CSV to download.
   */
  async function plot(feature, collection) {
    Object.assign(state, { feature, collection });
    const name = String(feature.properties.name ?? feature.id ?? 'the boundary');
    if (collection && state.table?.collection === collection) return plotTable(feature, state.table, name);
    if (!state.dataset) {
      series.replaceChildren(paragraph(`Choose a dataset to plot its series over ${name}.`));
      return;
    }
    const dataset = state.dataset;
    if (root.dataset.seriesAllowed !== 'true') return offerSignIn();
    root.dataset.series = 'loading';
    series.replaceChildren(paragraph(`Computing the mean over ${name} …`));
    const response = await fetch('/result', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ process: { process_graph: meanSeriesGraph(dataset, feature.geometry) } }),
    });
    // Another click or dataset came first: its answer is the one to show.
    if (state.feature !== feature || state.dataset !== dataset) return;
    if (response.status === 401 || response.status === 403) return offerSignIn();
    const answer = await response.json();
    if (!response.ok) {
      root.dataset.series = 'failed';
      series.replaceChildren(paragraph(`Refused (${response.status} ${answer.code}): ${answer.message}`));
      return;
    }
    const { labels, values } = seriesOf(answer);
    const title = paragraph(`Mean of ${datasetSelect.selectedOptions[0]?.textContent ?? dataset} over ${name}`);
    series.replaceChildren(title, drawSeries(labels, values, { dataset, feature: String(feature.id ?? '') }));
    if (collection) series.append(chapDownload(dataset, collection));
    root.dataset.series = 'ready';
  }

  /** The table's series of the org unit for the chosen period type and statistic: one request, nothing computed. */
  async function plotTable(feature, table, name) {
    const [type, stat] = [periodTypeSelect.value, statSelect.value];
    root.dataset.series = 'loading';
    // Every period of the org unit, not `pe` with the type's periods: a long daily series would not fit in a URL.
    const answer = await getJson(
      `/analytics/${encodeURIComponent(table.id)}?ou=${encodeURIComponent(String(feature.id))}&stat=${encodeURIComponent(stat)}`,
    );
    if (
      state.feature !== feature ||
      state.table !== table ||
      periodTypeSelect.value !== type ||
      statSelect.value !== stat
    )
      return;
    const values = valuesBy(answer, 'pe');
    const periods = table.periods[type];
    const title = paragraph(`${stat} of ${table.id} (${type}) over ${name}`);
    const drawn = drawSeries(
      periods.map((p) => p.name),
      periods.map((p) => values.get(p.id) ?? null),
      { dataset: table.dataset, feature: String(feature.id ?? '') },
    );
    drawn.dataset.table = table.id;
    series.replaceChildren(title, drawn, chapDownload(table.dataset, table.collection));
    root.dataset.series = 'ready';
  }

  // A click off the boundaries plots the place: the grid cell that holds the point (aggregate_spatial of a Point).
  map.on('click', ({ latlng }) => {
    state.place?.remove();
    state.place = L.circleMarker(latlng, { ...SELECTED, radius: 6 }).addTo(map);
    const [lat, lon] = [latlng.lat.toFixed(5), latlng.lng.toFixed(5)];
    plot({
      type: 'Feature',
      id: `${lat},${lon}`,
      geometry: { type: 'Point', coordinates: [Number(lon), Number(lat)] },
      properties: { name: `${lat}, ${lon}` },
    });
    restyle();
  });

  function offerSignIn() {
    root.dataset.series = 'refused';
    const signIn = document.createElement('a');
    signIn.href = '/login?return_to=' + encodeURIComponent(location.pathname + location.search);
    signIn.textContent = 'Sign in as a user who may compute series (POST /result needs F_JOB_MANAGE)';
    series.replaceChildren(signIn);
  }

  const report = (error) => {
    series.replaceChildren(paragraph(`Failed: ${error.message}`));
    root.dataset.series = 'failed';
  };
  const reportColouring = (error) => {
    root.dataset.choropleth = 'failed';
    report(error);
  };
  datasetSelect.addEventListener('change', () => {
    offerTables().catch(reportColouring);
    showDataset(datasetSelect.value).catch(report);
  });
  collectionSelect.addEventListener('change', () => {
    offerTables().catch(reportColouring);
    showBoundaries(collectionSelect.value).catch(report);
  });
  tableSelect.addEventListener('change', () => chooseTable().catch(reportColouring));
  periodTypeSelect.addEventListener('change', () => choosePeriodType().catch(reportColouring));
  tablePeriodSelect.addEventListener('change', () => colourBoundaries().catch(reportColouring));
  statSelect.addEventListener('change', () => showTableChoice().catch(reportColouring));
  slider.addEventListener('input', () => state.layer && showPeriod());
  offerTables().catch(reportColouring);
  showDataset(datasetSelect.value).catch(report);
  showBoundaries(collectionSelect.value).catch(report);
}

/** A DHIS2 analytics answer's values by the item of dimension `by`. */
function valuesBy(answer, by) {
  const column = (name) => answer.headers.findIndex((h) => h.name === name);
  const [key, value] = [column(by), column('value')];
  return new Map(answer.rows.map((row) => [row[key], Number(row[value])]));
}

/**
 * Up to CLASSES classes holding about as many values each (quantiles, linearly interpolated), as `{lower, upper}`
 * from the lowest value to the highest; equal breaks merge, so few distinct values give fewer classes.
 */
function quantileClasses(values) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!sorted.length) return [];
  const at = (q) => {
    const i = q * (sorted.length - 1);
    const lo = Math.floor(i);
    return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (i - lo);
  };
  const breaks = [...new Set([...Array(CLASSES + 1).keys()].map((k) => at(k / CLASSES)))];
  if (breaks.length === 1) return [{ lower: breaks[0], upper: breaks[0] }];
  return breaks.slice(1).map((upper, i) => ({ lower: breaks[i], upper }));
}

/** Four significant digits, without trailing zeros. */
function round(value) {
  return String(Number(value.toPrecision(4)));
}

async function getJson(url) {
  const response = await fetch(url, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

/**
 * A button that runs `aggregate_to_chap_csv` (monthly means over every feature of the collection) by `POST /result`
 * and saves the answer as a file; a refusal is shown beside it.
 */
function chapDownload(dataset, collection) {
  const button = document.createElement('button');
  button.type = 'button';
  button.id = 'map-chap-csv';
  button.textContent = `Download monthly means over every boundary as CHAP CSV`;
  const status = document.createElement('span');
  status.className = 'muted';
  button.addEventListener('click', async () => {
    button.dataset.download = 'loading';
    status.textContent = ' Computing …';
    const chap = { datasets: [dataset], features: collection, period_type: 'monthly' };
    try {
      const response = await fetch('/result', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          process: { process_graph: { chap: { process_id: 'aggregate_to_chap_csv', arguments: chap, result: true } } },
        }),
      });
      if (!response.ok) {
        const answer = await response.json();
        throw new Error(`Refused (${response.status} ${answer.code}): ${answer.message}`);
      }
      const file = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = file;
      link.download = `${dataset}-${collection}.chap.csv`;
      link.click();
      // The download has its own copy of the file by then.
      setTimeout(() => URL.revokeObjectURL(file), 60_000);
      status.textContent = '';
      button.dataset.download = 'ready';
    } catch (error) {
      status.textContent = ` ${error.message}`;
      button.dataset.download = 'failed';
    }
  });
  const row = document.createElement('p');
  row.append(button, status);
  return row;
}

function paragraph(text) {
  const p = document.createElement('p');
  p.textContent = text;
  return p;
}

/** load_collection → aggregate_spatial (mean over the geometry) → JSON: one value per period. */
function meanSeriesGraph(dataset, geometry) {
  return {
    load: { process_id: 'load_collection', arguments: { id: dataset, spatial_extent: null, temporal_extent: null } },
    mean: {
      process_id: 'aggregate_spatial',
      arguments: {
        data: { from_node: 'load' },
        geometries: geometry,
        reducer: {
          process_graph: {
            mean: { process_id: 'mean', arguments: { data: { from_parameter: 'data' } }, result: true },
          },
        },
      },
    },
    save: { process_id: 'save_result', arguments: { data: { from_node: 'mean' }, format: 'JSON' }, result: true },
  };
}

/** The series of a vector cube in JSON (docs/processing.md): the first geometry's and band's value at each time. */
function seriesOf(cube) {
  const time = cube.dimensions.findIndex((d) => d.type === 'temporal');
  const labels = cube.dimensions[time].labels;
  const values = labels.map((_, t) => {
    let cell = cube.data;
    for (let d = 0; d < cube.dimensions.length; d++) cell = cell[d === time ? t : 0];
    return typeof cell === 'number' && Number.isFinite(cell) ? cell : null;
  });
  return { labels, values };
}

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A line plot of the series, with its range and its first and last period; no value, no point (a gap). */
function drawSeries(labels, values, about) {
  const [width, height, left, right, top, bottom] = [720, 260, 64, 16, 12, 40];
  const finite = values.filter((v) => v !== null);
  let [lo, hi] = finite.length ? [Math.min(...finite), Math.max(...finite)] : [0, 1];
  if (lo === hi) [lo, hi] = [lo - 1, hi + 1];
  const x = (i) => left + ((width - left - right) * i) / Math.max(1, labels.length - 1);
  const y = (v) => top + ((height - top - bottom) * (hi - v)) / (hi - lo);
  let d = '';
  values.forEach((v, i) => {
    if (v === null) return;
    d += `${i > 0 && values[i - 1] !== null ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
  });
  const day = (label) => String(label).slice(0, 10);
  const plot = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': `From ${day(labels[0])} to ${day(labels.at(-1))}, between ${lo} and ${hi}`,
  });
  plot.dataset.labels = JSON.stringify(labels);
  plot.dataset.values = JSON.stringify(values);
  plot.dataset.dataset = about.dataset;
  plot.dataset.feature = about.feature;
  plot.append(
    svg('line', { class: 'axis', x1: left, y1: top, x2: left, y2: height - bottom }),
    svg('line', { class: 'axis', x1: left, y1: height - bottom, x2: width - right, y2: height - bottom }),
    svg('text', { x: left - 6, y: top + 10, 'text-anchor': 'end' }, hi.toPrecision(4)),
    svg('text', { x: left - 6, y: height - bottom, 'text-anchor': 'end' }, lo.toPrecision(4)),
    svg('text', { x: left, y: height - bottom + 18 }, day(labels[0])),
    svg('text', { x: width - right, y: height - bottom + 18, 'text-anchor': 'end' }, day(labels.at(-1))),
    svg('path', { class: 'line', d }),
  );
  return plot;
}

/**
 * Country outlines (world-atlas, served by this server) under everything else, so that the map shows where it is
 * without a basemap or any network beyond this server.
 */
async function drawOutlines(map, root) {
  const response = await fetch(root.dataset.outlinesUrl);
  if (!response.ok) return;
  const topology = await response.json();
  const countries = topojson.feature(topology, topology.objects.countries);
  const pane = map.createPane('outlines');
  pane.style.zIndex = 250;
  L.geoJSON(countries, { style: OUTLINE, pane }).addTo(map);
  root.dataset.outlines = String(countries.features.length);
}
