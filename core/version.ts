/** Stratus's own version, as package.json states it: the API's `backend_version` and the engine's in provenance. */
import { createRequire } from 'node:module';

export const STRATUS_VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
