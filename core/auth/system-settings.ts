import { configMapKind } from '../cluster/builtin-kinds.ts';
import { isApiError } from '../cluster/errors.ts';
import type { KubeObject } from '../cluster/objects.ts';
import type { Cluster } from '../cluster/port.ts';
import { allowlistEntryProblem } from './redirect-uri.ts';

/**
 * The system settings of spec 2 that the authorization server reads (DESIGN.md §5: a ConfigMap, written through
 * `/api/systemSettings`). Absent settings take spec 2's defaults; each read sees the current ConfigMap, so a
 * change applies on every replica at once. This module is the one definition of the settings: their names,
 * defaults, the text they are stored and shown as, and the rules a value must meet.
 */
export const SYSTEM_SETTINGS_CONFIGMAP = 'stratus-system-settings';

export interface SystemSettings {
  /** Redirect URIs (globs) a device may enrol with; custom-scheme client redirect URIs must appear verbatim. */
  deviceEnrollmentRedirectAllowlist: string[];
  /** User-group UIDs allowed to enrol devices; empty: any authenticated user. */
  deviceEnrollmentAllowedUserGroups: string[];
  deviceEnrollmentIATTtlSeconds: number;
}

export type SystemSettingKey = keyof SystemSettings;

/** Spec 2's defaults; `<app_scheme>://oauth` is Stratus's own deep link, `stratus://oauth`. */
export const DEFAULT_SYSTEM_SETTINGS: SystemSettings = {
  deviceEnrollmentRedirectAllowlist: ['stratus://oauth'],
  deviceEnrollmentAllowedUserGroups: [],
  deviceEnrollmentIATTtlSeconds: 60,
};

/** An initial access token is for an enrolment that happens at once; an hour is already generous. */
export const MAX_IAT_TTL_SECONDS = 3600;

const MAX_GROUP_ID_LENGTH = 255;

/** How the settings show on the API: lists as comma-separated text (as spec 2 writes them), the TTL as a number. */
export type SystemSettingValues = { [K in SystemSettingKey]: SystemSettings[K] extends number ? number : string };

type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

interface SettingRule<T, Shown> {
  /** The value of the stored (or submitted) text, or what is wrong with it. */
  parse(text: string): Parsed<T>;
  show(value: T): Shown;
}

/** Comma-separated entries, trimmed, empty ones dropped (so an empty text is an empty list). */
function listRule(entryProblem: (entry: string) => string | undefined): SettingRule<string[], string> {
  return {
    parse(text) {
      const entries = text
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
      for (const entry of entries) {
        const problem = entryProblem(entry);
        if (problem) return { ok: false, problem: `'${entry.slice(0, 100)}' ${problem}` };
      }
      return { ok: true, value: entries };
    },
    show: (value) => value.join(','),
  };
}

const rules: { [K in SystemSettingKey]: SettingRule<SystemSettings[K], SystemSettingValues[K]> } = {
  deviceEnrollmentRedirectAllowlist: listRule(allowlistEntryProblem),
  deviceEnrollmentAllowedUserGroups: listRule((id) =>
    /[\s\p{Cc}]/u.test(id)
      ? 'must not contain whitespace or control characters'
      : id.length > MAX_GROUP_ID_LENGTH
        ? `must be at most ${MAX_GROUP_ID_LENGTH} characters`
        : undefined,
  ),
  deviceEnrollmentIATTtlSeconds: {
    parse(text) {
      const seconds = /^\s*\d{1,10}\s*$/.test(text) ? Number(text) : NaN;
      return seconds >= 1 && seconds <= MAX_IAT_TTL_SECONDS
        ? { ok: true, value: seconds }
        : { ok: false, problem: `must be a whole number of seconds from 1 to ${MAX_IAT_TTL_SECONDS}` };
    },
    show: (value) => value,
  },
};

export const SYSTEM_SETTING_KEYS = Object.keys(rules) as SystemSettingKey[];

export function isSystemSettingKey(key: string): key is SystemSettingKey {
  return Object.hasOwn(rules, key);
}

function rule<K extends SystemSettingKey>(key: K): SettingRule<SystemSettings[K], SystemSettingValues[K]> {
  return rules[key] as SettingRule<SystemSettings[K], SystemSettingValues[K]>;
}

/**
 * The settings a ConfigMap's data give. A value that breaks its rule (written by hand past the API) counts as
 * absent: the default applies, which `GET /api/systemSettings` shows.
 */
export function systemSettingsOf(data: Record<string, string> | undefined): SystemSettings {
  const settings = { ...DEFAULT_SYSTEM_SETTINGS };
  for (const key of SYSTEM_SETTING_KEYS) {
    const text = data?.[key];
    const result = text === undefined ? undefined : rule(key).parse(text);
    if (result?.ok) (settings as Record<SystemSettingKey, unknown>)[key] = result.value;
  }
  return settings;
}

/** The settings as the API shows them. */
export function systemSettingValues(settings: SystemSettings): SystemSettingValues {
  return Object.fromEntries(
    SYSTEM_SETTING_KEYS.map((key) => [key, rule(key).show(settings[key])]),
  ) as SystemSettingValues;
}

/**
 * A submitted value (text, or a number for the TTL) as it is to be stored: its canonical text, or what is wrong
 * with it.
 */
export function storedText(
  key: SystemSettingKey,
  submitted: unknown,
): { ok: true; text: string } | { ok: false; problem: string } {
  if (typeof submitted !== 'string' && typeof submitted !== 'number')
    return { ok: false, problem: 'must be a string (a number for a number of seconds)' };
  const result = rule(key).parse(String(submitted));
  return result.ok ? { ok: true, text: String(rule(key).show(result.value)) } : result;
}

type ConfigMap = KubeObject & { data?: Record<string, string> };

export async function readSystemSettings(cluster: Cluster, namespace: string): Promise<SystemSettings> {
  const map = await cluster.get<ConfigMap>(configMapKind, SYSTEM_SETTINGS_CONFIGMAP, namespace);
  return systemSettingsOf(map?.data);
}

/** Compare-and-swap attempts before a write gives up to concurrent writers. */
const MAX_ATTEMPTS = 50;

/**
 * Stores settings (canonical texts from `storedText`; null removes one, so that its default applies) all at once:
 * the ConfigMap is created if absent, else replaced by compare-and-swap on its resourceVersion, and a writer that
 * loses the race reads again and reapplies its changes, so concurrent writes of different keys all land. Other
 * keys of the ConfigMap are kept. Answers the settings in force after the write.
 */
export async function writeSystemSettings(
  cluster: Cluster,
  namespace: string,
  changes: Partial<Record<SystemSettingKey, string | null>>,
): Promise<SystemSettings> {
  for (let attempt = 1; ; attempt++) {
    const current = await cluster.get<ConfigMap>(configMapKind, SYSTEM_SETTINGS_CONFIGMAP, namespace);
    const data = { ...current?.data };
    for (const [key, text] of Object.entries(changes)) {
      if (text === null) delete data[key];
      else data[key] = text;
    }
    const unchanged =
      Object.keys(data).length === Object.keys(current?.data ?? {}).length &&
      Object.entries(data).every(([key, text]) => current?.data?.[key] === text);
    if (unchanged) return systemSettingsOf(data);
    try {
      if (current) await cluster.update<ConfigMap>(configMapKind, { ...current, data });
      else
        await cluster.create<ConfigMap>(configMapKind, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: SYSTEM_SETTINGS_CONFIGMAP, namespace },
          data,
        });
      return systemSettingsOf(data);
    } catch (err) {
      if (!(isApiError(err, 'Conflict') || isApiError(err, 'AlreadyExists')) || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}
