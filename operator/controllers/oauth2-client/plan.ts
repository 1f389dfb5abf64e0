import {
  clientRuleFailures,
  draftOf,
  isRegistrar,
  registrationOf,
  requiresProofKey,
} from '../../../core/auth/clients/rules.ts';
import { ConditionType } from '../../../core/resources/conditions.ts';
import { oauth2ClientConditions } from '../../../core/resources/oauth2-client/conditions.ts';
import type { OAuth2Client } from '../../../core/resources/oauth2-client/schema.ts';
import type { Plan } from '../../runtime/actions.ts';
import { eventOf, readinessConditions, readinessOf } from '../../runtime/readiness.ts';

export interface OAuth2ClientObserved {
  /** The system setting deviceEnrollmentRedirectAllowlist of the client's namespace. */
  allowlist: string[];
  /** The other clients that make this one's client id ambiguous (core/auth/clients/rules.ts `rivalsOf`). */
  rivals: string[];
}

/**
 * A client is Ready when it keeps the client rules, the same rules the client administration applies and the
 * authorization server checks before using a client; otherwise Stalled with every failure in the message, so that
 * a client applied by hand or by GitOps shows why the authorization server refuses it. A stored client without
 * PKCE is used as stored (spec 2) but is Ready with its own reason, which flags it for an administrator.
 */
export function planOAuth2Client(client: OAuth2Client, observed: OAuth2ClientObserved, now: Date): Plan {
  const failures = clientRuleFailures(draftOf(client), {
    allowlist: observed.allowlist,
    rivals: observed.rivals,
    registrar: isRegistrar(client),
    registration: registrationOf(client),
    stored: true,
  });
  const valid = failures.length === 0;
  const previous = client.status?.conditions?.find((c) => c.type === ConditionType.Ready);
  const conditions = readinessConditions(
    client.status?.conditions,
    !valid
      ? readinessOf(
          oauth2ClientConditions,
          'InvalidClient',
          `The authorization server refuses this client: ${failures.map((f) => f.message).join(' ')}`,
        )
      : requiresProofKey(client)
        ? readinessOf(oauth2ClientConditions, 'ValidClient', 'The client keeps the client rules.')
        : readinessOf(
            oauth2ClientConditions,
            'StoredWithoutProofKey',
            'The client is used as stored, without PKCE (settings.client.require-proof-key is false); new and updated clients must require it: set it to true once the client sends S256 code challenges.',
          ),
    client.metadata.generation as number | undefined,
    now,
  );
  const message = conditions.find((c) => c.type === ConditionType.Ready)!.message;
  const newlyInvalid = !valid && (previous?.reason !== 'InvalidClient' || previous.message !== message);
  return {
    actions: [
      { kind: 'patchStatus', status: { ...client.status, conditions } },
      ...(newlyInvalid ? [eventOf(oauth2ClientConditions, 'InvalidClient', message)] : []),
    ],
    outcome: { kind: 'done', reason: valid ? 'valid' : 'invalid' },
  };
}
