import { configMapKind } from '../cluster/builtin-kinds.ts';
import type { KubeObject } from '../cluster/objects.ts';
import type { Cluster } from '../cluster/port.ts';

/**
 * The system settings of spec 2 that the authorization server reads (DESIGN.md §5: a ConfigMap, written through
 * `/api/systemSettings`). Absent settings take spec 2's defaults; each read sees the current ConfigMap, so a
 * change applies on every replica at once.
 */
export const SYSTEM_SETTINGS_CONFIGMAP = 'stratus-system-settings';

export interface SystemSettings {
  /** Redirect URIs (globs) a device may enrol with; custom-scheme client redirect URIs must appear verbatim. */
  deviceEnrollmentRedirectAllowlist: string[];
  /** User-group UIDs allowed to enrol devices; empty: any authenticated user. */
  deviceEnrollmentAllowedUserGroups: string[];
  deviceEnrollmentIATTtlSeconds: number;
}

/** Spec 2's defaults; `<app_scheme>://oauth` is Stratus's own deep link, `stratus://oauth`. */
export const DEFAULT_SYSTEM_SETTINGS: SystemSettings = {
  deviceEnrollmentRedirectAllowlist: ['stratus://oauth'],
  deviceEnrollmentAllowedUserGroups: [],
  deviceEnrollmentIATTtlSeconds: 60,
};

const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);

export function systemSettingsOf(data: Record<string, string> | undefined): SystemSettings {
  const ttl = Number(data?.deviceEnrollmentIATTtlSeconds);
  return {
    deviceEnrollmentRedirectAllowlist:
      list(data?.deviceEnrollmentRedirectAllowlist) ?? DEFAULT_SYSTEM_SETTINGS.deviceEnrollmentRedirectAllowlist,
    deviceEnrollmentAllowedUserGroups:
      list(data?.deviceEnrollmentAllowedUserGroups) ?? DEFAULT_SYSTEM_SETTINGS.deviceEnrollmentAllowedUserGroups,
    deviceEnrollmentIATTtlSeconds:
      Number.isInteger(ttl) && ttl > 0 ? ttl : DEFAULT_SYSTEM_SETTINGS.deviceEnrollmentIATTtlSeconds,
  };
}

export async function readSystemSettings(cluster: Cluster, namespace: string): Promise<SystemSettings> {
  const map = await cluster.get<KubeObject & { data?: Record<string, string> }>(
    configMapKind,
    SYSTEM_SETTINGS_CONFIGMAP,
    namespace,
  );
  return systemSettingsOf(map?.data);
}
