import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../cluster/objects.ts';
import { oauth2ClientKind, type OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import { addClient } from '../../../test/support/auth-context.ts';
import { openTestCluster } from '../../../test/support/auth-app.ts';
import { ClientDirectory } from './directory.ts';

describe('the client directory', () => {
  it('judges a client again once it changes, and not before', async () => {
    const cluster = await openTestCluster();
    const directory = new ClientDirectory(cluster, 'default');
    await addClient(cluster, { clientId: 'portal' });
    expect(await directory.lookup('portal')).toMatchObject({ found: true });
    expect(await directory.lookup('portal')).toMatchObject({ found: true });

    // Applied by hand, as kubectl would: a client without any authentication method breaks the rules.
    const stored = (await cluster.get<OAuth2Client & KubeObject>(oauth2ClientKind, 'portal', 'default'))!;
    await cluster.update(oauth2ClientKind, { ...stored, spec: { ...stored.spec, clientAuthenticationMethods: [] } });
    expect(await directory.lookup('portal')).toMatchObject({ found: false, why: 'invalid' });

    const broken = (await cluster.get<OAuth2Client & KubeObject>(oauth2ClientKind, 'portal', 'default'))!;
    await cluster.update(oauth2ClientKind, { ...broken, spec: stored.spec });
    expect(await directory.lookup('portal')).toMatchObject({ found: true });
  });
});
