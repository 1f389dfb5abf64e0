import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { openTestCluster } from '../../../test/support/auth-app.ts';
import { addUser, NAMESPACE } from '../../../test/support/auth-context.ts';
import { startExternalIdp } from '../../../test/support/external-idp.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import { parseInstanceConfig } from '../../config/index.ts';
import { userKind, type User } from '../../resources/user/schema.ts';
import { OAuthError } from '../errors.ts';
import { UserDirectory } from '../users/directory.ts';
import { authenticateAnyBearer, type BearerSources } from './bearer-by-issuer.ts';
import { ProviderKeySets } from './provider-keys.ts';
import { resolveProviders } from './providers.ts';

/** The external path with a clock the test moves (the HTTP acceptance is external-bearer.test.ts). */
async function setup() {
  const idp = await startExternalIdp({});
  const cluster = await openTestCluster();
  await addUser(cluster, 'ada', undefined, { openId: 'ada@example.org', externalAuthOnly: true });
  const clock = { now: new Date() };
  const log = pino({ level: 'silent' });
  const config = parseInstanceConfig(
    ['oidc.jwt.token.authentication.enabled = on', idp.providerConfig('idp')].join('\n'),
    'test',
  );
  const sources: BearerSources = {
    providers: resolveProviders(config, log),
    internal: undefined,
    external: { keys: new ProviderKeySets(), users: new UserDirectory(cluster, NAMESPACE), linkedAccounts: false },
    log,
    now: () => clock.now,
  };
  const at = Math.floor(clock.now.getTime() / 1000);
  const token = await idp.sign({ iss: idp.issuer, aud: idp.clientId, email: 'ada@example.org', exp: at + 60 });
  const refusal = (t = token) =>
    authenticateAnyBearer(sources, t).then(
      () => undefined,
      (err: unknown) => (err instanceof OAuthError ? err.message : err),
    );
  return { cluster, clock, sources, token, refusal };
}

describe('external bearer tokens already verified', () => {
  it('are still refused once expired', async () => {
    const { clock, sources, token, refusal } = await setup();
    expect((await authenticateAnyBearer(sources, token)).user.spec.username).toBe('ada');
    clock.now = new Date(clock.now.getTime() + 60_000 + 31_000);
    expect(await refusal()).toBe('the token has expired');
  });

  it('still map to a user who may act now', async () => {
    const { cluster, sources, token, refusal } = await setup();
    expect((await authenticateAnyBearer(sources, token)).user.spec.username).toBe('ada');
    const ada = (await cluster.get<User & KubeObject>(userKind, 'ada', NAMESPACE))!;
    await cluster.update(userKind, { ...ada, spec: { ...ada.spec, disabled: true } });
    expect(await refusal()).toBe('the account is disabled');
  });
});
