/*
 * The home page (routes/system/landing-page.ts): a button on each snippet (`pre[data-snippet]`) copies its text.
 * Made here, not in the page, so that a browser without scripts shows no button that does nothing.
 */
/* global document, navigator */

for (const snippet of document.querySelectorAll('pre[data-snippet]')) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'copy';
  button.textContent = 'Copy';
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(snippet.textContent);
      button.textContent = 'Copied';
    } catch {
      // Clipboard access needs a secure context (https or localhost) and the page's focus.
      button.textContent = 'Select the text to copy it';
    }
  });
  snippet.before(button);
}
