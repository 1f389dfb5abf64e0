import { html, type PageAssets, type SafeHtml } from './html.ts';

/** The script that posts run forms and follows their runs (`assets/runs.js`). */
export const RUN_ASSETS: PageAssets = { modules: ['runs.js'] };

/**
 * A form that starts a run (an ingestion, a sync, a refresh) with `Prefer: respond-async`: `runs.js` posts its
 * named fields as JSON (a checkbox as a boolean, an empty field as null; no field, no body) to `action`, then polls
 * the job record the 202 points to and shows its progress in the status element below the form.
 */
export function runForm(action: string, label: string, fields: SafeHtml | string = ''): SafeHtml {
  return html`<form class="run" method="post" action="${action}" data-run>
      ${fields}
      <button type="submit">${label}</button>
    </form>
    <div class="run-progress" role="status" aria-live="polite"></div>`;
}

/** What a page offers for starting runs: the form, a link to sign in first, or nothing on a read-only instance. */
export type RunAccess = 'allowed' | 'sign-in' | 'read-only';

/**
 * The form when the caller may start the run; else why not. Asked before posting, because a 401 carries a Basic
 * challenge, on which a browser opens its own credentials dialog.
 */
export function runStarter(access: RunAccess, path: string, form: () => SafeHtml): SafeHtml {
  if (access === 'read-only') return html`<p>This instance is read-only.</p>`;
  if (access === 'sign-in')
    return html`<p>
      <a href="/login?return_to=${encodeURIComponent(path)}">Sign in as a user who may start runs (F_DATASET_MANAGE)</a>
    </p>`;
  return form();
}
