/**
 * Heat and humidity formulas, one value at a time, in the working units of `units.ts` (degC, %, m s-1). Each
 * follows its source as published; docs/processing.md names them, and `heat.test.ts` checks each against the
 * source's own table or worked example.
 */

/**
 * Saturation vapour pressure over water in hPa (Magnus form with Alduchov and Eskridge's 1996 coefficients, within
 * 0.1 % of the Goff-Gratch tables from -40 to 50 degC).
 */
export function saturationVapourPressure(t: number): number {
  return 6.1094 * Math.exp((17.625 * t) / (t + 243.04));
}

/** Relative humidity (%) of air at `t` whose dewpoint is `dewpoint` (both degC): the ratio of their pressures. */
export function relativeHumidity(t: number, dewpoint: number): number {
  return (100 * saturationVapourPressure(dewpoint)) / saturationVapourPressure(t);
}

const fahrenheit = (c: number) => (c * 9) / 5 + 32;
const celsius = (f: number) => ((f - 32) * 5) / 9;

/**
 * The NWS heat index (degC) of air at `t` (degC) and `rh` (%), as the NWS Weather Prediction Center computes it:
 * Steadman's simple formula while its mean with the temperature is below 80 degF, else Rothfusz's regression with
 * the adjustments for dry air (RH below 13 % at 80-112 degF) and for humid air (RH above 85 % at 80-87 degF).
 */
export function heatIndex(t: number, rh: number): number {
  const f = fahrenheit(t);
  const simple = 0.5 * (f + 61 + (f - 68) * 1.2 + rh * 0.094);
  if ((simple + f) / 2 < 80) return celsius(simple);
  let hi =
    -42.379 +
    2.04901523 * f +
    10.14333127 * rh -
    0.22475541 * f * rh -
    0.00683783 * f * f -
    0.05481717 * rh * rh +
    0.00122874 * f * f * rh +
    0.00085282 * f * rh * rh -
    0.00000199 * f * f * rh * rh;
  if (rh < 13 && f >= 80 && f <= 112) hi -= ((13 - rh) / 4) * Math.sqrt((17 - Math.abs(f - 95)) / 17);
  else if (rh > 85 && f >= 80 && f <= 87) hi += ((rh - 85) / 10) * ((87 - f) / 5);
  return celsius(hi);
}

/**
 * Humidex (Masterton and Richardson 1979, Environment Canada) of air at `t` with dewpoint `dewpoint` (degC):
 * the temperature plus 5/9 of the vapour pressure (hPa) above 10 hPa.
 */
export function humidex(t: number, dewpoint: number): number {
  const e = 6.11 * Math.exp(5417.753 * (1 / 273.16 - 1 / (273.15 + dewpoint)));
  return t + 0.5555 * (e - 10);
}

/**
 * Wet-bulb temperature (degC) at standard sea-level pressure from `t` (degC) and `rh` (%), Stull's 2011 fit
 * (valid for RH 5-99 % and -20 to 50 degC; mean absolute error below 0.3 degC).
 */
export function wetBulbTemperature(t: number, rh: number): number {
  return (
    t * Math.atan(0.151977 * Math.sqrt(rh + 8.313659)) +
    Math.atan(t + rh) -
    Math.atan(rh - 1.676331) +
    0.00391838 * rh ** 1.5 * Math.atan(0.023101 * rh) -
    4.686035
  );
}

/**
 * Apparent temperature (degC) in the shade, the Australian Bureau of Meteorology's form of Steadman's 1994 model
 * without radiation: temperature `t` (degC), relative humidity `rh` (%) and wind speed `wind` (m s-1 at 10 m).
 */
export function apparentTemperature(t: number, rh: number, wind: number): number {
  const vapourPressure = (rh / 100) * 6.105 * Math.exp((17.27 * t) / (237.7 + t));
  return t + 0.33 * vapourPressure - 0.7 * wind - 4;
}
