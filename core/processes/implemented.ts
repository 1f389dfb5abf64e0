/**
 * The single source of truth for the openEO processes this backend runs. `/processes` lists exactly these, with
 * the official descriptions; an id that is not here answers 404 ProcessNotFound. The repository has no
 * processing engine yet, so the list is empty: an id joins it in the same change that implements the process.
 */
export const IMPLEMENTED_PROCESSES: readonly string[] = [];
