import { describe, expect, it } from 'vitest';
import { openTestCluster } from '../../test/support/auth-app.ts';
import {
  DEFAULT_SYSTEM_SETTINGS,
  MAX_IAT_TTL_SECONDS,
  readSystemSettings,
  storedText,
  systemSettingsOf,
  systemSettingValues,
  writeSystemSettings,
} from './system-settings.ts';

describe('system settings', () => {
  it('takes the defaults for absent settings and for stored values that break their rule', () => {
    expect(systemSettingsOf(undefined)).toEqual(DEFAULT_SYSTEM_SETTINGS);
    expect(
      systemSettingsOf({
        deviceEnrollmentRedirectAllowlist: 'javascript:*',
        deviceEnrollmentAllowedUserGroups: ' a , b ,',
        deviceEnrollmentIATTtlSeconds: String(MAX_IAT_TTL_SECONDS + 1),
      }),
    ).toEqual({ ...DEFAULT_SYSTEM_SETTINGS, deviceEnrollmentAllowedUserGroups: ['a', 'b'] });
    // An empty text is an empty list, not the default.
    expect(systemSettingsOf({ deviceEnrollmentRedirectAllowlist: '' }).deviceEnrollmentRedirectAllowlist).toEqual([]);
  });

  it('stores canonical text and shows lists as text, the TTL as a number', () => {
    expect(storedText('deviceEnrollmentRedirectAllowlist', ' myapp://cb ,, stratus://oauth ')).toEqual({
      ok: true,
      text: 'myapp://cb,stratus://oauth',
    });
    expect(storedText('deviceEnrollmentIATTtlSeconds', 120)).toEqual({ ok: true, text: '120' });
    expect(storedText('deviceEnrollmentIATTtlSeconds', '0120')).toEqual({ ok: true, text: '120' });
    expect(systemSettingValues(DEFAULT_SYSTEM_SETTINGS)).toEqual({
      deviceEnrollmentRedirectAllowlist: 'stratus://oauth',
      deviceEnrollmentAllowedUserGroups: '',
      deviceEnrollmentIATTtlSeconds: 60,
    });
  });

  it.each([
    ['deviceEnrollmentIATTtlSeconds', 0],
    ['deviceEnrollmentIATTtlSeconds', MAX_IAT_TTL_SECONDS + 1],
    ['deviceEnrollmentIATTtlSeconds', 1.5],
    ['deviceEnrollmentIATTtlSeconds', '1e3'],
    ['deviceEnrollmentIATTtlSeconds', '-5'],
    ['deviceEnrollmentIATTtlSeconds', true],
    ['deviceEnrollmentAllowedUserGroups', 'a b'],
    ['deviceEnrollmentAllowedUserGroups', ['a']],
    ['deviceEnrollmentRedirectAllowlist', 'stratus://oauth,*://x'],
    ['deviceEnrollmentRedirectAllowlist', null],
  ] as const)('refuses %s = %j', (key, value) => {
    expect(storedText(key, value).ok).toBe(false);
  });

  it('writes by create-if-absent and compare-and-swap, so that concurrent writers of different keys all land', async () => {
    const cluster = await openTestCluster();
    await Promise.all([
      writeSystemSettings(cluster, 'default', { deviceEnrollmentIATTtlSeconds: '300' }),
      writeSystemSettings(cluster, 'default', { deviceEnrollmentAllowedUserGroups: 'g1' }),
      writeSystemSettings(cluster, 'default', { deviceEnrollmentRedirectAllowlist: 'myapp://cb' }),
    ]);
    expect(await readSystemSettings(cluster, 'default')).toEqual({
      deviceEnrollmentRedirectAllowlist: ['myapp://cb'],
      deviceEnrollmentAllowedUserGroups: ['g1'],
      deviceEnrollmentIATTtlSeconds: 300,
    });
    const after = await writeSystemSettings(cluster, 'default', { deviceEnrollmentIATTtlSeconds: null });
    expect(after.deviceEnrollmentIATTtlSeconds).toBe(DEFAULT_SYSTEM_SETTINGS.deviceEnrollmentIATTtlSeconds);
    expect(await readSystemSettings(cluster, 'default')).toEqual(after);
  });
});
