import { hash } from './sample-hash.ts';

/**
 * Synthetic daily weather for the offline `sample` provider: precipitation (mm day-1) and minimum and maximum
 * temperature (degC) shaped like the West African monsoon climate of the sample extent (Sierra Leone): a wet season
 * peaking in August, a nearly rainless December to March, more rain towards the coast (west), hotter and drier
 * inland (east). Every value is a pure function of (seed, cell, day), so a day reads the same whatever range an
 * ingestion asks for, and the three variables of one seed describe the same weather (tmin < tmax, rainy days cooler).
 *
 * Wet and dry spells persist because a day is wet when a latent series falls below the season's wet-day probability,
 * and that series is mostly a moving average over recent days of noise shared by a half-degree region, plus a
 * little noise of the cell's own: neighbouring days and neighbouring cells are alike. Amounts on wet days follow a Weibull law of shape below one, whose long tail
 * gives the heavy-rain days (20 mm and more) an index of heavy rain needs.
 */

export type SampleWeatherVariable = 'precipitation' | 'tmin' | 'tmax';
export const sampleWeatherVariables: readonly SampleWeatherVariable[] = ['precipitation', 'tmin', 'tmax'];

/** Days the latent wetness series averages over, and how fast older days fade from it. */
const SPELL_MEMORY_DAYS = 12;
const SPELL_DECAY = 0.75;
const SPELL_NORM = Math.sqrt(
  Array.from({ length: SPELL_MEMORY_DAYS }, (_, k) => SPELL_DECAY ** (2 * k)).reduce((a, b) => a + b, 0),
);
/** Share of the latent variance that a half-degree region shares; the rest is the cell's own, day by day. */
const REGIONAL_SHARE = 0.85;
/** Weibull shape of wet-day amounts and Γ(1 + 1/shape), which turns a mean into the Weibull scale. */
const AMOUNT_SHAPE = 0.75;
const AMOUNT_GAMMA = 1.1906;
/** Salts that keep the noise of each use apart for one seed. */
const SALT = { latent: 1, cellLatent: 2, amount: 3, tmax: 4, range: 5 };

/** A standard normal deviate from two hashes (Box-Muller). */
function normal(seed: number, a: number, b: number, c: number): number {
  const u = 1 - hash(seed, a, b, c);
  const v = hash(seed ^ 0x5bd1e995, a, b, c);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** The standard normal distribution function (Abramowitz and Stegun 7.1.26, error below 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return 0.5 * (1 + (z < 0 ? -erf : erf));
}

/** How far into the wet season the day is: 0 in February, 1 in early August. */
function wetSeason(day: number): number {
  const phase = (2 * Math.PI * (day - 213)) / 365.25;
  return ((1 + Math.cos(phase)) / 2) ** 2;
}

/** More rain towards the coast: 1 at 11.5°W, up to 1.3 west of it and down to 0.7 east of it. */
function coastFactor(lon: number): number {
  return Math.min(1.3, Math.max(0.7, 1 + 0.12 * (-11.5 - lon)));
}

/** The wetness a half-degree region shares on a day: standard normal, correlated over days. */
function regionalWetness(seed: number, regionX: number, regionY: number, day: number): number {
  let sum = 0;
  for (let k = 0; k < SPELL_MEMORY_DAYS; k++)
    sum += SPELL_DECAY ** k * normal(seed + SALT.latent, regionX, regionY, day - k);
  return sum / SPELL_NORM;
}

/** The precipitation of a cell on a day, in mm day-1 to 0.1 mm: 0 on a dry day. */
function precipitation(seed: number, cell: Cell, regional: number): number {
  const season = wetSeason(cell.day);
  const coast = coastFactor(cell.lon);
  const wetProbability = Math.min(0.95, (0.03 + 0.82 * season) * coast);
  const wetness =
    Math.sqrt(REGIONAL_SHARE) * regional +
    Math.sqrt(1 - REGIONAL_SHARE) * normal(seed + SALT.cellLatent, cell.j, cell.i, cell.day);
  if (normalCdf(wetness) >= wetProbability) return 0;
  const meanAmount = (5 + 17 * season) * coast;
  const u = hash(seed + SALT.amount, cell.j, cell.i, cell.day);
  const amount = (meanAmount / AMOUNT_GAMMA) * (-Math.log(1 - u)) ** (1 / AMOUNT_SHAPE);
  return Math.max(0.1, round1(amount));
}

/** A cell of the grid on a day: its centre, its row and column, and the day (days since 1970-01-01). */
interface Cell {
  lon: number;
  lat: number;
  j: number;
  i: number;
  day: number;
}

/**
 * The daily weather of cells for one seed: precipitation in mm day-1, minimum and maximum temperature in degC.
 * It remembers the regional wetness of the last day it was asked for, which every cell of a plane shares.
 */
export function sampleWeather(seed: number): (cell: Cell) => Record<SampleWeatherVariable, number> {
  let cachedDay = Number.NaN;
  const regions = new Map<string, number>();
  return (cell) => {
    if (cell.day !== cachedDay) {
      regions.clear();
      cachedDay = cell.day;
    }
    const regionX = Math.floor(cell.lon * 2);
    const regionY = Math.floor(cell.lat * 2);
    const key = `${regionX},${regionY}`;
    let regional = regions.get(key);
    if (regional === undefined) {
      regional = regionalWetness(seed, regionX, regionY, cell.day);
      regions.set(key, regional);
    }
    const { lon, lat, j, i, day } = cell;
    const rain = precipitation(seed, cell, regional);
    const season = wetSeason(day);
    const inland = Math.min(3, Math.max(0, lon + 13.5));
    // Hottest in March and April before the rains, cooler under the monsoon clouds and on rainy days.
    const heat = Math.cos((2 * Math.PI * (day - 90)) / 365.25);
    const rainy = rain >= 1 ? 1 : 0;
    const tmax =
      31 + 2 * heat - 3 * season + 0.6 * inland + 0.2 * (lat - 8) - 1.5 * rainy + normal(seed + SALT.tmax, j, i, day);
    // The Harmattan months have clear nights and a wide daily range; the wet season a narrow one.
    const range = 5 + 4 * (1 - season) - rainy + 0.4 * inland + 1.5 * hash(seed + SALT.range, j, i, day);
    return { precipitation: rain, tmax: round1(tmax), tmin: round1(tmax - range) };
  };
}

const round1 = (v: number) => Math.round(v * 10) / 10;
