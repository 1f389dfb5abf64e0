import { authenticationConfigured, type InstanceConfig } from '../../../core/config/index.ts';
import { holds } from '../../plugins/app/authentication/authority.ts';
import type { Caller } from '../../plugins/app/authentication/caller.ts';
import type { RunAccess } from '../../views/runs.ts';

/** Whether a page's caller may start ingestions, syncs and refreshes (F_DATASET_MANAGE once authentication is on). */
export function runAccess(config: InstanceConfig, caller: Caller): RunAccess {
  if (config.readOnly) return 'read-only';
  return !authenticationConfigured(config) || holds(caller, 'F_DATASET_MANAGE') ? 'allowed' : 'sign-in';
}
