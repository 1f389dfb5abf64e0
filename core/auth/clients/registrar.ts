/**
 * The internal client of dynamic client registration (spec 2): the only client that may use the
 * client_credentials grant, and a reserved client id that the client administration refuses.
 */
export const REGISTRAR_CLIENT_ID = 'system-dcr-registrar-client';
