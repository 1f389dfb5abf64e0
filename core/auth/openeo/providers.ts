import type { KubeObject } from '../../cluster/objects.ts';
import type { Cluster } from '../../cluster/port.ts';
import { oauth2ClientKind, type OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import type { ClientDirectory } from '../clients/directory.ts';

/**
 * openEO's `/credentials/oidc` for the internal provider (DESIGN.md §5): the authorization server itself, with the
 * clients an administrator marks as openEO default clients (label `climate.stratus.dev/openeo-default-client:
 * "true"`). openEO requires a default client to need no secret, so only public clients (`none`) that the client
 * directory would use (they pass the client rules) are listed; PKCE is always on, so their code grant is
 * `authorization_code+pkce`.
 */
export const OPENEO_DEFAULT_CLIENT_LABEL = 'climate.stratus.dev/openeo-default-client';

export interface OpenEoDefaultClient {
  id: string;
  grant_types: string[];
  redirect_urls: string[];
}

export async function openEoDefaultClients(
  cluster: Cluster,
  namespace: string,
  clients: ClientDirectory,
): Promise<OpenEoDefaultClient[]> {
  const { items } = await cluster.list<OAuth2Client & KubeObject>(oauth2ClientKind, {
    namespace,
    labelSelector: `${OPENEO_DEFAULT_CLIENT_LABEL}=true`,
  });
  const listed: OpenEoDefaultClient[] = [];
  for (const candidate of items) {
    const lookup = await clients.lookup(candidate.spec.clientId);
    if (!lookup.found) continue;
    const { spec } = lookup.client;
    if (
      !spec.clientAuthenticationMethods.includes('none') ||
      !spec.authorizationGrantTypes.includes('authorization_code')
    )
      continue;
    listed.push({
      id: spec.clientId,
      grant_types: [
        'authorization_code+pkce',
        ...(spec.authorizationGrantTypes.includes('refresh_token') ? ['refresh_token'] : []),
      ],
      redirect_urls: [...spec.redirectUris],
    });
  }
  return listed;
}
