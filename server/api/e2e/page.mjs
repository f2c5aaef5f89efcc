// @ts-check
// A CRM's click-to-call page, on another origin than the API: it places the
// call with the typed client (a JSON body, so the browser sends a CORS
// preflight first) and shows what it can read of the answer: the call id,
// Location and Idempotent-Replayed (readable only through
// Access-Control-Expose-Headers). A second click repeats the same
// Idempotency-Key. browser.mjs bundles it with esbuild and serves it.
import { apiClient } from './client.mjs';

const api = apiClient(document.body.dataset.api ?? '');
const show = (/** @type {string} */ id, /** @type {string} */ text) => {
  const el = document.getElementById(id);
  if (el) el.textContent = text;
};
document.getElementById('call')?.addEventListener('click', async () => {
  const { data, error, response } = await api.POST('/calls', {
    body: { number: '+4930123' },
    headers: { 'Idempotency-Key': 'crm-click-1' },
  });
  show('location', response.headers.get('Location') ?? '');
  show('replayed', response.headers.get('Idempotent-Replayed') ?? '');
  show('result', data ? data.id : `error ${response.status} ${error?.error}`);
});
