import { SUPERUSER } from '../../plugins/app/authentication/authority.ts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  isSystemSettingKey,
  readSystemSettings,
  storedText,
  SYSTEM_SETTING_KEYS,
  systemSettingValues,
  writeSystemSettings,
  type SystemSettingKey,
} from '../../../core/auth/system-settings.ts';
import { HttpError, type ErrorReport } from '../../errors.ts';
import { commonErrorResponses, errorDetailSchema, webMessageErrorSchema } from '../../schemas.ts';
import {
  settingKeyParams,
  settingValueQuery,
  systemSettingsSchema,
  systemSettingsWriteSchema,
  webMessageOkSchema,
} from './schemas.ts';

const tags = ['System settings'];
const PATH = '/api/systemSettings';

const denied = { 401: errorDetailSchema, 403: errorDetailSchema };

function knownKey(key: string): SystemSettingKey {
  if (!isSystemSettingKey(key))
    throw new HttpError(
      'NotFound',
      `No system setting is called '${key.slice(0, 100)}'; the settings: ${SYSTEM_SETTING_KEYS.join(', ')}.`,
    );
  return key;
}

function refused(reports: ErrorReport[]): HttpError {
  return new HttpError(
    'InvalidSystemSetting',
    reports.length === 1 ? reports[0]!.message : `${reports.length} system settings are refused; nothing was changed.`,
    [],
    { errorReports: reports },
  );
}

const ok = (message: string) => ({
  httpStatus: 'OK' as const,
  httpStatusCode: 200 as const,
  status: 'OK' as const,
  message,
});

/** A write of one setting takes a text/plain body or `?value=`, nothing else. */
async function requireTextBody(request: FastifyRequest) {
  const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (type !== undefined && type !== 'text/plain')
    throw new HttpError('UnsupportedMediaType', `The value is a text/plain body (or ?value=), not ${type}.`);
}

/**
 * The system settings API of spec 2, shaped like DHIS2's: read all or one, write one (text/plain or `?value=`)
 * or several at once (a JSON object, all or nothing), delete one (back to its default). Values are stored in the
 * ConfigMap `stratus-system-settings` (core/auth/system-settings.ts), which the authorization server reads on
 * every request.
 */
export const systemSettingsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, namespace } = app.stratus;

  const write = async (request: FastifyRequest, changes: Partial<Record<SystemSettingKey, string | null>>) => {
    await writeSystemSettings(cluster, namespace, changes);
    request.log.info(
      { settings: Object.keys(changes), username: request.caller.authenticated && request.caller.username },
      'system settings changed',
    );
  };

  app.get(
    PATH,
    {
      config: { access: SUPERUSER },
      schema: {
        summary: 'The system settings (superuser only)',
        description: 'Every setting in force, defaults included. Needs the authority `ALL`.',
        tags,
        response: { 200: systemSettingsSchema, ...denied, ...commonErrorResponses },
      },
    },
    async () => systemSettingValues(await readSystemSettings(cluster, namespace)),
  );

  app.get(
    `${PATH}/:key`,
    {
      config: { access: SUPERUSER },
      schema: {
        summary: 'One system setting (superuser only)',
        description: 'The setting in force as a JSON object of one member, `{"<key>": <value>}`.',
        tags,
        params: settingKeyParams,
        response: { 200: systemSettingsSchema.partial(), ...denied, 404: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      const key = knownKey(request.params.key);
      return { [key]: systemSettingValues(await readSystemSettings(cluster, namespace))[key] };
    },
  );

  app.post(
    `${PATH}/:key`,
    {
      config: { access: SUPERUSER },
      onRequest: requireTextBody,
      schema: {
        summary: 'Set one system setting (superuser only)',
        description:
          'The value is the text/plain body or `?value=` (not both; `?value=` with nothing after it sets an empty ' +
          'list). A value that breaks the rule answers 409 InvalidSystemSetting.',
        tags,
        consumes: ['text/plain'],
        params: settingKeyParams,
        querystring: settingValueQuery,
        // fastify gives null for a POST without a body.
        body: z.string().nullish().describe('The value as text.'),
        response: {
          200: webMessageOkSchema,
          400: errorDetailSchema,
          ...denied,
          404: errorDetailSchema,
          409: webMessageErrorSchema,
          415: errorDetailSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request) => {
      const key = knownKey(request.params.key);
      const body = request.body || undefined;
      const { value } = request.query;
      if ((body === undefined) === (value === undefined))
        throw new HttpError('BadRequest', 'Give the value either as a text/plain body or as ?value=, once.');
      const result = storedText(key, body ?? value);
      if (!result.ok)
        throw refused([{ message: `${key} ${result.problem}`, errorCode: 'InvalidSystemSetting', errorProperty: key }]);
      await write(request, { [key]: result.text });
      return ok(`System setting '${key}' set to '${result.text}'.`);
    },
  );

  app.post(
    PATH,
    {
      config: { access: SUPERUSER },
      schema: {
        summary: 'Set several system settings at once (superuser only)',
        description:
          'A JSON object of settings, stored all at once or, when one is unknown or breaks its rule, not at all ' +
          '(409 InvalidSystemSetting with one report per problem).',
        tags,
        body: systemSettingsWriteSchema,
        response: { 200: webMessageOkSchema, ...denied, 409: webMessageErrorSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      const changes: Partial<Record<SystemSettingKey, string>> = {};
      const reports: ErrorReport[] = [];
      for (const [key, submitted] of Object.entries(request.body)) {
        if (!isSystemSettingKey(key)) {
          reports.push({
            message: `No system setting is called '${key.slice(0, 100)}'.`,
            errorCode: 'InvalidSystemSetting',
            errorProperty: key.slice(0, 100),
          });
          continue;
        }
        const result = storedText(key, submitted);
        if (result.ok) changes[key] = result.text;
        else
          reports.push({ message: `${key} ${result.problem}`, errorCode: 'InvalidSystemSetting', errorProperty: key });
      }
      if (reports.length > 0) throw refused(reports);
      if (Object.keys(changes).length > 0) await write(request, changes);
      return ok(`System settings set: ${Object.keys(changes).join(', ') || 'none'}.`);
    },
  );

  app.delete(
    `${PATH}/:key`,
    {
      config: { access: SUPERUSER },
      schema: {
        summary: 'Reset one system setting to its default (superuser only)',
        tags,
        params: settingKeyParams,
        response: { 200: webMessageOkSchema, ...denied, 404: errorDetailSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      const key = knownKey(request.params.key);
      await write(request, { [key]: null });
      return ok(`System setting '${key}' is back to its default.`);
    },
  );
};
