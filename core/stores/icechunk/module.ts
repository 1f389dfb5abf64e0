import { createRequire } from 'node:module';
import type * as Icechunk from '@earthmover/icechunk';

type IcechunkModule = typeof Icechunk;

let loaded: IcechunkModule | undefined;

/**
 * The Icechunk bindings, loaded on first use: the native addon where the C library is recent enough (glibc 2.38,
 * as in the container image), else its wasm32-wasi build, which takes a while to instantiate. Processes that
 * never touch an Icechunk dataset never pay for it.
 */
export function icechunk(): IcechunkModule {
  loaded ??= createRequire(import.meta.url)('@earthmover/icechunk') as IcechunkModule;
  return loaded;
}
