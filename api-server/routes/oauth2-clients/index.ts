import type { Authority } from '../../plugins/app/authentication/authority.ts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ClientAdministration,
  isReserved,
  uidOf,
  type WriteResult,
} from '../../../core/auth/clients/administration.ts';
import { REGISTRAR_CLIENT_ID } from '../../../core/auth/clients/registrar.ts';
import { HttpError, type ErrorReport } from '../../errors.ts';
import {
  commonErrorResponses,
  errorDetailSchema,
  objectReportMessageSchema,
  webMessageErrorSchema,
} from '../../schemas.ts';
import {
  clientRecord,
  DEFAULT_LIST_FIELDS,
  KLASS,
  parseClientBody,
  RECORD_FIELDS,
  RESERVED_REPORT,
} from '../../services/oauth2-clients/representation.ts';
import { dhis2Page, pick, selectedMembers } from '../../dhis2-pager.ts';
import {
  clientBodySchema,
  clientListSchema,
  clientRecordSchema,
  listQuerySchema,
  singleQuerySchema,
  uidParamsSchema,
} from '../../services/oauth2-clients/schemas.ts';

const tags = ['OAuth2 clients'];
const AUTHORITY: Authority = 'F_OAUTH2_CLIENT_MANAGE';
const PATH = '/api/oAuth2Clients';

const refused = (message: string, reports: ErrorReport[]) =>
  new HttpError('E4000', message, [], { errorReports: reports });

const reservedError = () =>
  refused(`The internal registrar client ${REGISTRAR_CLIENT_ID} cannot be created, changed or deleted.`, [
    RESERVED_REPORT,
  ]);

/** The result of a write, or the catalogue's refusal of it. */
function written(result: WriteResult, uid?: string) {
  if (result.ok) return result.client;
  switch (result.why) {
    case 'not-found':
      throw new HttpError('NotFound', `No OAuth2 client has the uid '${uid?.slice(0, 100)}'.`);
    case 'reserved':
      throw reservedError();
    case 'uid-taken':
      // The API makes the uids of the clients it creates; only an import names one.
      throw new HttpError('Conflict', 'Another OAuth2 client has this uid.');
    case 'invalid':
      throw refused('The OAuth2 client breaks the client rules.', result.failures);
    case 'contended':
      throw new HttpError('Conflict', 'The OAuth2 client kept changing; try again.');
  }
}

const objectReport = (uid: string, created = false) => ({
  httpStatus: created ? ('Created' as const) : ('OK' as const),
  httpStatusCode: created ? (201 as const) : (200 as const),
  status: 'OK' as const,
  response: { responseType: 'ObjectReport' as const, uid, klass: KLASS, errorReports: [] },
});

/**
 * The client administration of spec 2 (docs/authorization.md, "Client administration"), present when the
 * authorization server is on. Every call needs the authority F_OAUTH2_CLIENT_MANAGE; the internal registrar client
 * is hidden and refused. The body is judged by the client rules (`core/auth/clients/rules.ts`).
 */
export const oauth2ClientRoutes: FastifyPluginAsyncZod = async (app) => {
  if (!app.authorizationServer) return;
  const { cluster, namespace } = app.stratus;
  const clients = new ClientAdministration(cluster, namespace);
  const input = (body: unknown) => {
    const parsed = parseClientBody(body);
    if (!parsed.ok) throw refused('The OAuth2 client cannot be read.', parsed.reports);
    return parsed.input;
  };
  const errors = { 401: errorDetailSchema, 403: errorDetailSchema, ...commonErrorResponses };

  app.get(
    PATH,
    {
      config: { access: AUTHORITY },
      schema: {
        summary: 'List OAuth2 clients',
        description: 'DHIS2-style page of clients; the internal registrar client is omitted.',
        tags,
        querystring: listQuerySchema,
        response: { 200: clientListSchema, ...errors },
      },
    },
    async (request) => {
      const all = (await clients.all())
        .filter((c) => !isReserved(c))
        .map(clientRecord)
        .sort((a, b) => a.name!.localeCompare(b.name!) || a.id!.localeCompare(b.id!));
      const { pager, items } = dhis2Page(all, request.query);
      const members = selectedMembers(request.query.fields, RECORD_FIELDS, DEFAULT_LIST_FIELDS);
      return { ...(pager && { pager }), oAuth2Clients: items.map((record) => pick(record, members)) };
    },
  );

  app.get(
    `${PATH}/:uid`,
    {
      config: { access: AUTHORITY },
      schema: {
        summary: 'An OAuth2 client',
        tags,
        params: uidParamsSchema,
        querystring: singleQuerySchema,
        response: { 200: clientRecordSchema, 404: errorDetailSchema, ...errors },
      },
    },
    async (request) => {
      const client = await clients.find(request.params.uid);
      if (!client || isReserved(client))
        throw new HttpError('NotFound', `No OAuth2 client has the uid '${request.params.uid.slice(0, 100)}'.`);
      return pick(clientRecord(client), selectedMembers(request.query.fields, RECORD_FIELDS));
    },
  );

  const writeSchema = {
    tags,
    body: clientBodySchema,
    response: { 409: webMessageErrorSchema, ...errors },
  };

  app.post(
    PATH,
    {
      config: { access: AUTHORITY },
      // The body is judged by parseClientBody, which answers E4000 with every problem instead of a 422.
      attachValidation: true,
      schema: {
        ...writeSchema,
        summary: 'Create an OAuth2 client',
        description: '201 with the DHIS2 ObjectReport of the new uid; 409 (E4000) for a client that breaks a rule.',
        response: { 201: objectReportMessageSchema, ...writeSchema.response },
      },
    },
    async (request, reply) => {
      const client = written(await clients.create(input(request.body)));
      request.log.info({ uid: uidOf(client), clientId: client.spec.clientId }, 'OAuth2 client created');
      return reply.status(201).send(objectReport(uidOf(client), true));
    },
  );

  app.put(
    `${PATH}/:uid`,
    {
      config: { access: AUTHORITY },
      attachValidation: true,
      schema: {
        ...writeSchema,
        summary: 'Replace an OAuth2 client',
        description:
          'Replaces every member but `name` (kept when absent) and `clientSecret` (kept when absent; a new one ' +
          'invalidates the old at once). Compare-and-swap: a concurrent change is re-read and judged again.',
        params: uidParamsSchema,
        response: { 200: objectReportMessageSchema, 404: errorDetailSchema, ...writeSchema.response },
      },
    },
    async (request) => {
      const { uid } = request.params;
      // The registrar is refused before its body is judged: nothing of it may change.
      const current = await clients.find(uid);
      if (current && isReserved(current)) throw reservedError();
      const client = written(await clients.replace(uid, input(request.body)), uid);
      request.log.info({ uid, clientId: client.spec.clientId }, 'OAuth2 client replaced');
      return objectReport(uid);
    },
  );

  app.delete(
    `${PATH}/:uid`,
    {
      config: { access: AUTHORITY },
      schema: {
        summary: 'Delete an OAuth2 client',
        description: 'Deletes the client and the Secret holding its secret.',
        tags,
        params: uidParamsSchema,
        response: { 200: objectReportMessageSchema, 404: errorDetailSchema, 409: webMessageErrorSchema, ...errors },
      },
    },
    async (request) => {
      const { uid } = request.params;
      const client = written(await clients.delete(uid), uid);
      request.log.info({ uid, clientId: client.spec.clientId }, 'OAuth2 client deleted');
      return objectReport(uid);
    },
  );
};
