import { draftOf, needsAllowlist, registrationOf, rivalsOf } from '../../../core/auth/clients/rules.ts';
import { readSystemSettings } from '../../../core/auth/system-settings.ts';
import { objectKey, type KubeObject } from '../../../core/cluster/objects.ts';
import { oauth2ClientKind, type OAuth2Client } from '../../../core/resources/oauth2-client/schema.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { planOAuth2Client, type OAuth2ClientObserved } from './plan.ts';

type Client = OAuth2Client & KubeObject;

/**
 * Judges each OAuth2Client by the client rules. Whether a client is valid also depends on the other clients (a
 * client id must be unique) and, for custom-scheme redirect URIs, on the system settings; the controller remembers
 * which client id each client it has seen carries, so that a change of one client requeues those that share its
 * id (before or after the change). A change of the allow-list shows at the periodic resync.
 */
export function oauth2ClientController(): ControllerDefinition<Client, OAuth2ClientObserved> {
  const clientIds = new Map<string, string>();
  return {
    name: 'oauth2client',
    kind: oauth2ClientKind,
    watches: [
      {
        kind: oauth2ClientKind,
        keysOf: (object: KubeObject) => {
          const key = objectKey(object);
          const id = (object as Client).spec.clientId;
          const before = clientIds.get(key);
          clientIds.set(key, id);
          return [...clientIds]
            .filter(([other, otherId]) => other !== key && (otherId === id || otherId === before))
            .map(([other]) => other);
        },
      },
    ],
    observe: async (client, cluster) => {
      const { namespace } = client.metadata;
      const { items } = await cluster.list<Client>(oauth2ClientKind, { namespace });
      const allowlist = needsAllowlist(draftOf(client), registrationOf(client))
        ? (await readSystemSettings(cluster, namespace!)).deviceEnrollmentRedirectAllowlist
        : [];
      return { allowlist, rivals: rivalsOf(client, items) };
    },
    plan: planOAuth2Client,
  };
}
