import type { KubeObject } from '../../cluster/objects.ts';
import type { Cluster } from '../../cluster/port.ts';
import { oauth2ClientKind, type OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import { secretKind, secretValue, type Secret } from '../../resources/secret.ts';

/** A DNS-1123 subdomain: what a client id must be to double as the resource's name. */
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * The one way the authorization server finds a registered client by its `clientId` (spec 2) and reads its secret.
 * Clients are OAuth2Client resources; the lookup first tries the resource named like the client id (how clients
 * created through the API are named), then any resource carrying that client id (clients applied by hand may be
 * named otherwise). Two resources claiming one client id make it unusable rather than ambiguous.
 */
export class ClientDirectory {
  readonly #cluster: Cluster;
  readonly #namespace: string;

  constructor(cluster: Cluster, namespace: string) {
    this.#cluster = cluster;
    this.#namespace = namespace;
  }

  async find(clientId: string): Promise<OAuth2Client | undefined> {
    if (clientId.length <= 253 && NAME.test(clientId)) {
      const named = await this.#cluster.get<OAuth2Client & KubeObject>(oauth2ClientKind, clientId, this.#namespace);
      if (named?.spec.clientId === clientId && !named.metadata.deletionTimestamp) return named;
    }
    const { items } = await this.#cluster.list<OAuth2Client & KubeObject>(oauth2ClientKind, {
      namespace: this.#namespace,
    });
    const matching = items.filter((c) => c.spec.clientId === clientId && !c.metadata.deletionTimestamp);
    return matching.length === 1 ? matching[0] : undefined;
  }

  /** The client's secret, from the Secret key its `clientSecretRef` names; undefined when it has none. */
  async secretOf(client: OAuth2Client): Promise<string | undefined> {
    const ref = client.spec.clientSecretRef;
    if (!ref) return undefined;
    const secret = await this.#cluster.get<Secret & KubeObject>(secretKind, ref.name, this.#namespace);
    return secret && secretValue(secret, ref.key);
  }
}
