import type { LoginFailure } from './sign-in.ts';

/**
 * What the login page says after a refused sign-in through a provider (`/login?oidc_error=<kind>`). Only these
 * fixed texts are shown, never text from the request or the provider.
 */
export const LOGIN_FAILURE_MESSAGES: Record<LoginFailure, string> = {
  state:
    'The sign-in could not be matched to this browser: it expired, was completed already, or was not started here. Please sign in again.',
  denied: 'The sign-in was cancelled or refused at the identity provider.',
  provider: 'The identity provider could not complete the sign-in. Please try again later.',
  token: 'The identity provider’s answer could not be verified.',
  account: 'No account of this instance may sign in with this identity.',
};

export function loginFailureMessage(kind: string | undefined): string | undefined {
  return kind !== undefined && Object.hasOwn(LOGIN_FAILURE_MESSAGES, kind)
    ? LOGIN_FAILURE_MESSAGES[kind as LoginFailure]
    : undefined;
}
