import type { KubeObject } from '../../cluster/objects.ts';
import { Lru } from '../../cache/lru.ts';
import type { Cluster } from '../../cluster/port.ts';
import { oauth2ClientKind, type OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import { secretKind, secretValue, type Secret } from '../../resources/secret.ts';
import { readSystemSettings } from '../system-settings.ts';
import { clientRuleFailures, draftOf, isRegistrar, needsAllowlist, registrationOf } from './rules.ts';

/** A DNS-1123 subdomain: what a client id must be to double as the resource's name. */
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * The one way the authorization server finds a registered client by its `clientId` (spec 2) and reads its secret.
 * Clients are OAuth2Client resources; the lookup first tries the resource named like the client id (how clients
 * created through the API are named), then any resource carrying that client id (clients applied by hand may be
 * named otherwise). Two resources claiming one client id make it unusable rather than ambiguous, and so does a
 * client that breaks the client rules (`rules.ts`): the authorization server uses no client the client
 * administration would refuse, whoever stored it.
 */
export type ClientLookup =
  /** `bySettings`: the client was judged against the system settings too (its custom-scheme redirect URI). */
  | { found: true; client: OAuth2Client; bySettings: boolean }
  | { found: false; why: 'unknown' }
  | { found: false; why: 'invalid'; problems: string[] };

/** Judgements kept: one per client in use, so a bearer request does not judge its client again. */
const JUDGEMENTS_KEPT = 1024;

export class ClientDirectory {
  readonly #cluster: Cluster;
  readonly #namespace: string;
  /**
   * The rule failures of a client, by its uid, resourceVersion and the allow-list it was judged with: both change
   * whenever the judgement could, so a kept one is never stale.
   */
  readonly #judged = new Lru<string[]>(JUDGEMENTS_KEPT);

  constructor(cluster: Cluster, namespace: string) {
    this.#cluster = cluster;
    this.#namespace = namespace;
  }

  /** The usable client of this id, if any. */
  async find(clientId: string): Promise<OAuth2Client | undefined> {
    const lookup = await this.lookup(clientId);
    return lookup.found ? lookup.client : undefined;
  }

  /** The client of this id, or why there is none to use. */
  async lookup(clientId: string): Promise<ClientLookup> {
    const client = await this.#claimant(clientId);
    if (!client) return { found: false, why: 'unknown' };
    const draft = draftOf(client);
    // Only a custom-scheme redirect URI is judged by the allow-list: most clients cost no read of the settings.
    const registration = registrationOf(client);
    const bySettings = needsAllowlist(draft, registration);
    const allowlist = bySettings
      ? (await readSystemSettings(this.#cluster, this.#namespace)).deviceEnrollmentRedirectAllowlist
      : [];
    const key = `${client.metadata.uid}@${client.metadata.resourceVersion}@${allowlist.join(',')}`;
    let problems = this.#judged.get(key);
    if (!problems) {
      const registrar = isRegistrar(client);
      problems = clientRuleFailures(draft, { allowlist, rivals: [], registrar, registration, stored: true }).map(
        (f) => f.message,
      );
      this.#judged.set(key, problems);
    }
    return problems.length === 0 ? { found: true, client, bySettings } : { found: false, why: 'invalid', problems };
  }

  async #claimant(clientId: string): Promise<(OAuth2Client & KubeObject) | undefined> {
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
