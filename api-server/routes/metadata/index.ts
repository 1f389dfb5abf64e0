import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ClientAdministration } from '../../../core/auth/clients/administration.ts';
import { authenticationConfigured } from '../../../core/config/index.ts';
import { programKind } from '../../../core/resources/program/schema.ts';
import { trackedEntityTypeKind } from '../../../core/resources/tracked-entity-type/schema.ts';
import { HttpError } from '../../errors.ts';
import { requireAuthority, SUPERUSER } from '../../plugins/app/authentication/authority.ts';
import { commonErrorResponses, errorDetailSchema, webMessageErrorSchema } from '../../schemas.ts';
import { clientImporter } from './clients.ts';
import { importErrorReport, type Importer } from './importer.ts';
import { changeLogSwitchImporter } from './tracker.ts';
import {
  addStats,
  emptyStats,
  IMPORT_STRATEGIES,
  importReportMessageSchema,
  typeReport,
  type Judged,
  type TypeReport,
} from './report.ts';

const PATH = '/api/metadata';

/**
 * The records of the authorization server, which spec 2 keeps out of the metadata import: each object is refused
 * with an error report of its own.
 */
function refusedRecords(collection: string, klass: string, what: string): Importer {
  return {
    collection,
    klass,
    judge: async (objects) =>
      objects.map((_object, index) => ({
        index,
        outcome: 'created' as const,
        errors: [
          importErrorReport(klass, {
            message: `${what} cannot be imported: the authorization server alone stores them (spec 2).`,
            errorCode: 'E3000',
          }),
        ],
      })),
    apply: async (judged) => [...judged],
  };
}

const objects = (what: string) => z.array(z.unknown()).optional().describe(what);

const bodySchema = z
  .object({
    oAuth2Clients: objects(
      'OAuth2 clients as `GET /api/oAuth2Clients?fields=*` shows them, with `clientSecret` for a new confidential client; matched by `id`.',
    ),
    programs: objects('Programs `{id, enableChangeLog}`: switches the changelog of existing ones.'),
    trackedEntityTypes: objects('Tracked entity types `{id, enableChangeLog}`: as programs.'),
    oAuth2Authorizations: objects('Refused, one error report per object (spec 2).'),
    oAuth2AuthorizationConsents: objects('Refused, one error report per object (spec 2).'),
  })
  .loose()
  .describe('A DHIS2 metadata import body; members that are no list (`system`, `pager`) are ignored.');

const querySchema = z.object({
  importStrategy: z
    .enum(IMPORT_STRATEGIES)
    .default('CREATE_AND_UPDATE')
    .describe('CREATE refuses existing objects (E5000), UPDATE and DELETE missing ones (E5001).'),
  atomicMode: z
    .enum(['ALL', 'NONE'])
    .default('ALL')
    .describe('ALL: nothing is written when any object fails; NONE: the good objects are written.'),
  dryRun: z.enum(['true', 'false']).default('false').describe('true: judge and report, write nothing.'),
});

/**
 * DHIS2's metadata import (`POST /api/metadata`) for what Stratus keeps as DHIS2 metadata: OAuth2 clients (spec 2,
 * with the authorization server on) and the tracker changelog switches. Every object is judged first; then the
 * good ones are written, unless the import is atomic and one failed, or a dry run. See docs/authorization.md
 * ("Metadata import").
 */
export const metadataRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, namespace, config } = app.stratus;
  const clients = new ClientAdministration(cluster, namespace);
  // The route needs F_OAUTH2_CLIENT_MANAGE; the changelog switches need a superuser, as their PATCH does.
  const importers: { importer: Importer; superuser: boolean; authorizationServer: boolean }[] = [
    { importer: clientImporter(clients), superuser: false, authorizationServer: true },
    {
      importer: refusedRecords(
        'oAuth2Authorizations',
        'org.hisp.dhis.security.oauth2.authorization.Dhis2OAuth2Authorization',
        'Authorizations',
      ),
      superuser: false,
      authorizationServer: true,
    },
    {
      importer: refusedRecords(
        'oAuth2AuthorizationConsents',
        'org.hisp.dhis.security.oauth2.consent.Dhis2OAuth2AuthorizationConsent',
        'Consents',
      ),
      superuser: false,
      authorizationServer: true,
    },
    ...[
      { collection: 'programs', kind: programKind, klass: 'org.hisp.dhis.program.Program' },
      {
        collection: 'trackedEntityTypes',
        kind: trackedEntityTypeKind,
        klass: 'org.hisp.dhis.trackedentity.TrackedEntityType',
      },
    ].map((area) => ({
      importer: changeLogSwitchImporter(cluster, namespace, area),
      superuser: true,
      authorizationServer: false,
    })),
  ];
  const known = new Set(importers.map((i) => i.importer.collection));

  app.post(
    PATH,
    {
      config: { access: 'F_OAUTH2_CLIENT_MANAGE' },
      schema: {
        summary: 'Import metadata (DHIS2)',
        description:
          'Imports OAuth2 clients (404 when the authorization server is off) and the changelog switches of ' +
          'programs and tracked entity types (these need a superuser), judged by the rules of their ' +
          "APIs. Answers DHIS2's ImportReport: 200 with status OK (WARNING: atomicMode NONE and some objects " +
          'failed), 409 with status ERROR; each failing object is reported with its index and the rules it broke. ' +
          'A list of another type is 409 E4000. See docs/authorization.md#metadata-import.',
        tags: ['Metadata import'],
        querystring: querySchema,
        body: bodySchema,
        response: {
          200: importReportMessageSchema,
          409: z.union([importReportMessageSchema, webMessageErrorSchema]),
          401: errorDetailSchema,
          403: errorDetailSchema,
          404: errorDetailSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const body = request.body as Record<string, unknown>;
      const unknown = Object.keys(body).filter((key) => Array.isArray(body[key]) && !known.has(key));
      if (unknown.length > 0)
        throw new HttpError('E4000', `The import takes only ${[...known].join(', ')}.`, [], {
          errorReports: unknown.map((key) => ({
            message: `${key.slice(0, 100)} cannot be imported into Stratus.`,
            errorCode: 'E4000',
            errorProperty: key.slice(0, 100),
          })),
        });
      const present = importers.filter(({ importer }) => Array.isArray(body[importer.collection]));
      if (present.some((p) => p.authorizationServer) && !app.authorizationServer)
        throw new HttpError('NotFound', 'The authorization server is off: there are no OAuth2 clients to import.');
      if (authenticationConfigured(config) && present.some((p) => p.superuser)) requireAuthority(request, SUPERUSER);

      const { importStrategy, atomicMode } = request.query;
      const dryRun = request.query.dryRun === 'true';
      const judged: [Importer, Judged[]][] = [];
      for (const { importer } of present)
        judged.push([importer, await importer.judge(body[importer.collection] as unknown[], importStrategy)]);
      const failed = judged.some(([, objects]) => objects.some((o) => o.errors.length > 0));
      const atomicFailure = failed && atomicMode === 'ALL';
      const results: [Importer, Judged[]][] = [];
      for (const [importer, objects] of judged)
        results.push([importer, dryRun || atomicFailure ? objects : await importer.apply(objects)]);

      const stats = emptyStats();
      const typeReports: TypeReport[] = results.map(([importer, objects]) =>
        typeReport(importer.klass, objects, atomicFailure),
      );
      for (const report of typeReports) addStats(stats, report.stats);
      const anyFailure = typeReports.some((r) => r.objectReports.length > 0);
      const status = !anyFailure ? 'OK' : stats.ignored < stats.total ? 'WARNING' : 'ERROR';
      if (!dryRun) request.log.info({ importStrategy, atomicMode, stats, status }, 'metadata imported');
      const error = status === 'ERROR';
      return reply.status(error ? 409 : 200).send({
        httpStatus: error ? 'Conflict' : 'OK',
        httpStatusCode: error ? 409 : 200,
        status,
        ...(anyFailure && { message: 'One or more objects failed; see the object reports.' }),
        response: {
          responseType: 'ImportReport',
          status,
          importParams: { importStrategy, atomicMode, dryRun },
          stats,
          typeReports,
        },
      });
    },
  );
};
