import { isApiError } from '../../cluster/errors.ts';
import type { Cluster } from '../../cluster/port.ts';
import { API_VERSION } from '../../resources/kind.ts';
import { oauth2ClientKind, type OAuth2Client } from '../../resources/oauth2-client/schema.ts';

/**
 * The internal client of dynamic client registration (spec 2): the only client that may use the
 * client_credentials grant, and a reserved client id that the client administration refuses.
 */
export const REGISTRAR_CLIENT_ID = 'system-dcr-registrar-client';

/**
 * Creates the registrar client if absent (every replica at startup; the losers of the race find it made). Initial
 * access tokens are issued in its name. It gets no secret: nothing outside the server authenticates as it, so its
 * client_credentials grant stays unusable until an administrator gives it a `clientSecretRef`.
 */
export async function ensureRegistrarClient(cluster: Cluster, namespace: string): Promise<void> {
  const registrar: OAuth2Client = {
    apiVersion: API_VERSION,
    kind: 'OAuth2Client',
    metadata: { name: REGISTRAR_CLIENT_ID, namespace },
    spec: {
      clientId: REGISTRAR_CLIENT_ID,
      name: 'Device enrolment registrar (internal)',
      clientAuthenticationMethods: ['client_secret_basic'],
      authorizationGrantTypes: ['client_credentials'],
      redirectUris: [],
      scopes: [],
      clientSettings: { requireProofKey: true, requireAuthorizationConsent: false },
    },
  };
  try {
    await cluster.create(oauth2ClientKind, registrar);
  } catch (err) {
    if (!isApiError(err, 'AlreadyExists')) throw err;
  }
}
