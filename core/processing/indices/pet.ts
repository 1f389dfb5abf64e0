/**
 * Potential evapotranspiration by Hargreaves and Samani (1985) in the form of FAO Irrigation and Drainage Paper 56
 * (Allen et al. 1998, eq. 52), from daily minimum and maximum temperature and the extraterrestrial radiation of the
 * latitude and day of the year (eq. 21-25).
 */

/** The solar constant, MJ m-2 min-1. */
const SOLAR_CONSTANT = 0.082;
/** Evaporation equivalent of radiation, mm per MJ m-2 (1 / λ with λ = 2.45 MJ kg-1). */
const MM_PER_MJ = 0.408;

/** Extraterrestrial radiation (MJ m-2 day-1) at latitude `lat` (degrees) on day `dayOfYear` (1-366). */
export function extraterrestrialRadiation(lat: number, dayOfYear: number): number {
  const phi = (lat * Math.PI) / 180;
  const inverseDistance = 1 + 0.033 * Math.cos(((2 * Math.PI) / 365) * dayOfYear);
  const declination = 0.409 * Math.sin(((2 * Math.PI) / 365) * dayOfYear - 1.39);
  // Polar day and night: the sunset hour angle is clamped to [0, π].
  const sunset = Math.acos(Math.min(1, Math.max(-1, -Math.tan(phi) * Math.tan(declination))));
  const ra =
    ((24 * 60) / Math.PI) *
    SOLAR_CONSTANT *
    inverseDistance *
    (sunset * Math.sin(phi) * Math.sin(declination) + Math.cos(phi) * Math.cos(declination) * Math.sin(sunset));
  return Math.max(0, ra);
}

/** Hargreaves PET (mm day-1) from the day's minimum and maximum temperature (degC) and extraterrestrial radiation. */
export function hargreaves(tmin: number, tmax: number, radiation: number): number {
  const mean = (tmin + tmax) / 2;
  return 0.0023 * MM_PER_MJ * radiation * (mean + 17.8) * Math.sqrt(Math.max(0, tmax - tmin));
}
