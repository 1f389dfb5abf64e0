/*
 * Run forms (views/runs.ts): posts a form's fields as JSON with `Prefer: respond-async`, then follows the run by
 * polling its job record (the 202's Location) once a second and shows its status and progress, without a reload.
 * Polling rather than Server-Sent Events: the job record is what every client reads, and a poll a second costs
 * one small read.
 */
/* global document, fetch, location, setTimeout */

const POLL_MS = 1000;
const FINISHED = new Set(['successful', 'failed', 'cancelled']);

/** A form's named fields as a JSON body: a checkbox as a boolean, an empty field as null; no field, no body. */
function bodyOf(form) {
  const fields = [...form.elements].filter((element) => element.name);
  if (fields.length === 0) return undefined;
  const body = {};
  for (const field of fields)
    body[field.name] = field.type === 'checkbox' ? field.checked : field.value.trim() === '' ? null : field.value;
  return JSON.stringify(body);
}

function element(tag, text, attributes = {}) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

/** Shows a job record: its link, status, attempt, progress bar and message, and its error once failed. */
function show(out, href, job) {
  const line = element('p');
  line.append(element('a', `${job.processID} ${job.jobID}`, { href }), `: ${job.status}`);
  if (job.attempt > 1) line.append(` (attempt ${job.attempt} of ${job.maxAttempts})`);
  const percent = job.status === 'successful' ? 100 : (job.progress?.percent ?? 0);
  const bar = element('progress', undefined, { max: '100', value: String(percent) });
  bar.dataset.status = job.status;
  const detail = element(
    'p',
    job.error ? `${job.error.type}: ${job.error.message}` : (job.progress?.message ?? `${Math.round(percent)} %`),
  );
  out.replaceChildren(line, bar, detail);
}

async function follow(out, href) {
  for (;;) {
    const response = await fetch(href, { headers: { accept: 'application/json' } });
    if (!response.ok) {
      out.replaceChildren(element('p', `The job record answered ${response.status}.`));
      return;
    }
    const job = await response.json();
    show(out, href, job);
    if (FINISHED.has(job.status)) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function submit(form, out) {
  const body = bodyOf(form);
  const response = await fetch(form.action, {
    method: 'POST',
    headers: { prefer: 'respond-async', ...(body && { 'content-type': 'application/json' }) },
    body,
  });
  const answer = await response.json().catch(() => ({}));
  if (response.status === 202) return follow(out, response.headers.get('location'));
  if (response.status === 401 || response.status === 403) {
    const signIn = element('a', 'Sign in as a user who may start it (F_DATASET_MANAGE)', {
      href: '/login?return_to=' + encodeURIComponent(location.pathname),
    });
    return out.replaceChildren(signIn);
  }
  // A sync with nothing to do answers 200 with its status (up_to_date, not_syncable).
  if (response.ok) return out.replaceChildren(element('p', `Nothing to start: ${answer.status ?? 'done'}.`));
  out.replaceChildren(element('p', `Refused (${response.status}): ${JSON.stringify(answer.detail ?? answer)}`));
}

for (const form of document.querySelectorAll('form[data-run]')) {
  const out = form.nextElementSibling;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit(form, out).catch((error) => out.replaceChildren(element('p', `Failed: ${error.message}`)));
  });
}
