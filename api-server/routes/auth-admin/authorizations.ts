import { SUPERUSER } from '../../plugins/app/authentication/authority.ts';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { isAuthorizationName, type Authorization, type StoredToken } from '../../../core/auth/store/authorizations.ts';
import { isConsentName } from '../../../core/auth/store/names.ts';
import type { KindRef, KubeObject } from '../../../core/cluster/objects.ts';
import { creationTimestamp } from '../../../core/cluster/objects.ts';
import {
  oauth2AuthorizationConsentKind,
  type OAuth2AuthorizationConsent,
} from '../../../core/resources/oauth2-authorization-consent/schema.ts';
import { oauth2AuthorizationKind } from '../../../core/resources/oauth2-authorization/schema.ts';
import { HttpError } from '../../errors.ts';
import {
  dhis2FieldsQuery,
  dhis2Page,
  dhis2PagingQuery,
  pagerSchema,
  pick,
  selectedMembers,
} from '../../dhis2-pager.ts';
import { commonErrorResponses, errorDetailSchema } from '../../schemas.ts';
import { authorizationMembers, authorizationSchema, consentMembers, consentSchema, recordIdParams } from './schemas.ts';

type Consent = OAuth2AuthorizationConsent & KubeObject;

/** A token's members, named as DHIS2 names them (`accessTokenIssuedAt`, ...): its times and state only. */
function tokenMembers(prefix: string, token: StoredToken | undefined): Record<string, string | boolean> {
  return token
    ? {
        [`${prefix}IssuedAt`]: token.issuedAt,
        [`${prefix}ExpiresAt`]: token.expiresAt,
        [`${prefix}Invalidated`]: token.invalidated,
      }
    : {};
}

/**
 * An authorization as an administrator sees it: who, which client, which grant and scopes, and per token when it
 * was issued, when it expires and whether it is spent. Never a token value or hash, nor the PKCE challenge or
 * nonce: this API shows the authorization store's state, nothing that would help a reader present a token.
 */
export function authorizationView(record: Authorization): Record<string, unknown> {
  const { spec } = record;
  const created = creationTimestamp(record);
  const tokens = [spec.authorizationCode, spec.accessToken, spec.refreshToken, spec.idToken];
  // The record changes when a token is issued or the authorization revoked (a code is spent as tokens are issued).
  const changes = [created, spec.revocation?.time, ...tokens.map((t) => t?.issuedAt)].filter(
    (t): t is string => t !== undefined,
  );
  return {
    id: record.metadata.name,
    registeredClientId: spec.clientId,
    principalName: spec.principalName,
    authorizationGrantType: spec.grantType,
    authorizedScopes: spec.scopes.join(','),
    created,
    lastUpdated: changes.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a)),
    ...tokenMembers('authorizationCode', spec.authorizationCode),
    ...tokenMembers('accessToken', spec.accessToken),
    ...tokenMembers('refreshToken', spec.refreshToken),
    ...tokenMembers('oidcIdToken', spec.idToken),
    revoked: spec.revocation !== undefined,
    ...(spec.revocation && { revokedAt: spec.revocation.time, revocationReason: spec.revocation.reason }),
  };
}

export function consentView(record: Consent): Record<string, unknown> {
  const { spec } = record;
  return {
    id: record.metadata.name,
    registeredClientId: spec.clientId,
    principalName: spec.principalName,
    scopes: spec.scopes.join(','),
    authorities: spec.scopes.map((s) => `SCOPE_${s}`).join(','),
    created: creationTimestamp(record),
  };
}

interface Area<R extends KubeObject & { spec: { clientId: string; principalName: string } }> {
  path: string;
  /** The list's member, as DHIS2 names it. */
  collection: string;
  kind: KindRef;
  noun: string;
  isName(name: string): boolean;
  view(record: R): Record<string, unknown>;
  members: readonly string[];
  schema: z.ZodType;
}

const tags = ['Authorization server administration'];

function storedKindArea<R extends KubeObject & { spec: { clientId: string; principalName: string } }>(
  app: Parameters<FastifyPluginAsyncZod>[0],
  area: Area<R>,
) {
  const { cluster, namespace } = app.stratus;
  const fieldsQuery = {
    fields: dhis2FieldsQuery.describe(
      `Members to show, comma-separated (\`*\`: all, the default; \`!member\` leaves one out; unknown names are ignored): ${area.members.join(', ')}.`,
    ),
  };

  app.get(
    area.path,
    {
      config: { access: SUPERUSER },
      schema: {
        summary: `List the ${area.noun}s (superuser only)`,
        description:
          `The ${area.noun} records, oldest first (then by id), paged, optionally only those of one client or ` +
          'user. Read-only: the authorization server writes them. Needs the authority `ALL`.',
        tags,
        querystring: z.object({
          ...fieldsQuery,
          clientId: z.string().optional().describe('Only the records of this client id.'),
          principalName: z.string().optional().describe('Only the records of this user.'),
          ...dhis2PagingQuery,
        }),
        response: {
          200: z.object({ pager: pagerSchema.optional(), [area.collection]: z.array(area.schema) }),
          401: errorDetailSchema,
          403: errorDetailSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request) => {
      const { fields, clientId, principalName } = request.query;
      const selected = selectedMembers(fields, area.members);
      const records = (await cluster.list<R>(area.kind, { namespace })).items
        .filter(
          (r) =>
            (clientId === undefined || r.spec.clientId === clientId) &&
            (principalName === undefined || r.spec.principalName === principalName),
        )
        .sort(
          (a, b) =>
            creationTimestamp(a).localeCompare(creationTimestamp(b)) || a.metadata.name.localeCompare(b.metadata.name),
        );
      const { pager, items } = dhis2Page(records, request.query);
      return { ...(pager && { pager }), [area.collection]: items.map((r) => pick(area.view(r), selected)) };
    },
  );

  app.get(
    `${area.path}/:id`,
    {
      config: { access: SUPERUSER },
      schema: {
        summary: `One ${area.noun} (superuser only)`,
        tags,
        params: recordIdParams,
        querystring: z.object(fieldsQuery),
        response: {
          200: area.schema,
          401: errorDetailSchema,
          403: errorDetailSchema,
          404: errorDetailSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      const selected = selectedMembers(request.query.fields, area.members);
      // A name that cannot be a record's is not looked up (on Kubernetes an empty name would list the kind).
      const record = area.isName(id) ? await cluster.get<R>(area.kind, id, namespace) : undefined;
      if (!record) throw new HttpError('NotFound', `No ${area.noun} has the id '${id.slice(0, 100)}'.`);
      return pick(area.view(record), selected);
    },
  );
}

/**
 * The authorization server's stored authorizations and consents, read-only and for the superuser (spec 2): `/api/oAuth2Authorizations` and
 * `/api/oAuth2AuthorizationConsents`, DHIS2-style lists with a pager and `fields=`.
 */
export const authorizationAdminRoutes: FastifyPluginAsyncZod = async (app) => {
  storedKindArea<Authorization>(app, {
    path: '/api/oAuth2Authorizations',
    collection: 'oAuth2Authorizations',
    kind: oauth2AuthorizationKind,
    noun: 'OAuth2 authorization',
    isName: isAuthorizationName,
    view: authorizationView,
    members: Object.keys(authorizationMembers),
    schema: authorizationSchema,
  });
  storedKindArea<Consent>(app, {
    path: '/api/oAuth2AuthorizationConsents',
    collection: 'oAuth2AuthorizationConsents',
    kind: oauth2AuthorizationConsentKind,
    noun: 'OAuth2 authorization consent',
    isName: isConsentName,
    view: consentView,
    members: Object.keys(consentMembers),
    schema: consentSchema,
  });
};
