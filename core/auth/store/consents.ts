import { isApiError } from '../../cluster/errors.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import type { Cluster } from '../../cluster/port.ts';
import { API_VERSION } from '../../resources/kind.ts';
import {
  oauth2AuthorizationConsentKind,
  type OAuth2AuthorizationConsent,
} from '../../resources/oauth2-authorization-consent/schema.ts';
import { consentName } from './names.ts';

/**
 * OAuth2AuthorizationConsent objects: the scopes a user granted a client, one object per client and user (a
 * deterministic name), so a later request within them skips the consent screen.
 */
type StoredConsent = OAuth2AuthorizationConsent & KubeObject;

/** `openid` alone needs no consent: it only says who signed in (as Spring Authorization Server decides). */
export function needsConsent(requested: readonly string[], consented: readonly string[]): boolean {
  return requested.some((scope) => scope !== 'openid' && !consented.includes(scope));
}

export class Consents {
  readonly #cluster: Cluster;
  readonly #namespace: string;

  constructor(cluster: Cluster, namespace: string) {
    this.#cluster = cluster;
    this.#namespace = namespace;
  }

  async scopes(clientId: string, principalName: string): Promise<string[]> {
    const record = await this.#cluster.get<StoredConsent>(
      oauth2AuthorizationConsentKind,
      consentName(clientId, principalName),
      this.#namespace,
    );
    return record?.spec.scopes ?? [];
  }

  /** Adds `scopes` to what the user consented to for the client (create or compare-and-swap update). */
  async grant(clientId: string, principalName: string, scopes: readonly string[]): Promise<void> {
    const name = consentName(clientId, principalName);
    for (;;) {
      const current = await this.#cluster.get<StoredConsent>(oauth2AuthorizationConsentKind, name, this.#namespace);
      const merged = [...new Set([...(current?.spec.scopes ?? []), ...scopes])].sort();
      if (merged.length === 0) return;
      try {
        if (!current) {
          await this.#cluster.create<StoredConsent>(oauth2AuthorizationConsentKind, {
            apiVersion: API_VERSION,
            kind: 'OAuth2AuthorizationConsent',
            metadata: { name, namespace: this.#namespace },
            spec: { clientId, principalName, scopes: merged },
          });
        } else if (merged.length !== current.spec.scopes.length) {
          await this.#cluster.update(oauth2AuthorizationConsentKind, {
            ...current,
            spec: { ...current.spec, scopes: merged },
          });
        }
        return;
      } catch (err) {
        if (!isApiError(err, 'Conflict') && !isApiError(err, 'AlreadyExists')) throw err;
      }
    }
  }
}
