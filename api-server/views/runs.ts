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
