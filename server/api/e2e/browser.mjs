// @ts-check
// Browser checks of the local API in headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core), run by browser_test.go:
//
//   node server/api/e2e/browser.mjs <API base URL>
//
// Every API call here, in the page and in this script, goes through the
// typed client generated from openapi.json (client.mjs), so tsc proves the
// calls against the document and the run proves the document against the
// API.
// 1. Click-to-call: a page of another origin (localhost, the API is
//    127.0.0.1) posts {"number"} to POST /calls with Content-Type
//    application/json (so the browser sends a CORS preflight first) and
//    reads the call id, Location and, on a second click with the same
//    Idempotency-Key, Idempotent-Replayed (exposed to the page by CORS).
//    The call is then read and hung up through the typed client.
// 2. The history names the recording (recording_id); its page renders the
//    transcript, the player loads the audio (Range requests), a click on a
//    transcript line moves the player to that line's moment, and the page
//    links the call's history entry.
// Prints "ok ..." / "FAIL ..." lines and exits non-zero on a failure.
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { apiClient } from './client.mjs';

const [base, crmPort] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
let failed = 0;
/** @param {string} name @param {boolean} ok @param {string} [detail] */
function check(name, ok, detail = '') {
  console.log((ok ? 'ok   ' : 'FAIL ') + name + (ok || !detail ? '' : ': ' + detail));
  if (!ok) failed++;
}

const api = apiClient(base);

// The CRM page: its script is page.mjs with the typed client, bundled.
const bundle = await build({ entryPoints: [join(here, 'page.mjs')], bundle: true, write: false, format: 'iife', logLevel: 'error' });
const html = `<!DOCTYPE html><html><body data-api="${base}">
<button id="call">Call +4930123</button>
<span id="result"></span> <span id="location"></span> <span id="replayed"></span>
<script>${bundle.outputFiles[0].text}</script></body></html>`;
const crm = createServer((_, res) => { res.writeHead(200, { 'Content-Type': 'text/html' }); res.end(html); });
await new Promise((ok) => crm.listen(Number(crmPort || 0), '127.0.0.1', () => ok(undefined)));
const addr = crm.address();
const crmURL = `http://localhost:${typeof addr === 'object' && addr ? addr.port : 0}/`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run'], // the CRM page plays no audio: Chromium's own autoplay policy
});
try {
  const page = await browser.newPage();
  await page.goto(crmURL);
  await page.click('#call');
  await page.waitForFunction(() => document.querySelector('#result')?.textContent !== '', null, { timeout: 10000 });
  const id = (await page.textContent('#result')) ?? '';
  check('click-to-call answered with a call id', /^[0-9a-f-]{36}$/.test(id), id);
  check('the page reads Location', (await page.textContent('#location')) === `/calls/${id}`, (await page.textContent('#location')) ?? '');
  check('a first dial is not replayed', (await page.textContent('#replayed')) === '', (await page.textContent('#replayed')) ?? '');
  await page.evaluate(() => { for (const s of ['result', 'location', 'replayed']) { const el = document.getElementById(s); if (el) el.textContent = ''; } });
  await page.click('#call');
  await page.waitForFunction(() => document.querySelector('#result')?.textContent !== '', null, { timeout: 10000 });
  check('the same Idempotency-Key answers the same call', (await page.textContent('#result')) === id, (await page.textContent('#result')) ?? '');
  check('the page reads Idempotent-Replayed', (await page.textContent('#replayed')) === 'true', (await page.textContent('#replayed')) ?? '');

  const call = await api.GET('/calls/{id}', { params: { path: { id } } });
  check('GET /calls/{id} through the typed client', call.data?.number === '+4930123' && call.data?.state === 'dialing',
    JSON.stringify(call.data ?? call.error));
  const hangup = await api.POST('/calls/{id}/hangup', { params: { path: { id } } });
  check('hang up through the typed client', hangup.response.status === 204, String(hangup.response.status));

  // The history names the recording; its page links back to the entry.
  const hist = await api.GET('/history', { params: { query: { limit: 10 } } });
  const entry = (hist.data ?? []).find((h) => h.recording_id !== '');
  check('GET /history names a recording', entry !== undefined, JSON.stringify(hist.data ?? hist.error).slice(0, 300));
  const one = await api.GET('/history/{id}', { params: { path: { id: entry?.id ?? 'none' } } });
  check('GET /history/{id} names the same recording', one.data?.recording_id === entry?.recording_id, JSON.stringify(one.data ?? one.error));

  await page.goto(`${base}/ui/recordings/${entry?.recording_id}`);
  const lines = await page.$$('#transcript .line');
  check('transcript lines render', lines.length === 2, String(lines.length));
  const text = (await page.textContent('#transcript')) ?? '';
  check('transcript text is escaped and shown', text.includes('<b>really</b>') && text.includes('cancel my contract'), text);
  await page.waitForFunction((p) => /** @type {HTMLAudioElement} */ (document.querySelector(p)).readyState >= 1, '#player', { timeout: 10000 });
  const duration = await page.evaluate(() => /** @type {HTMLAudioElement} */ (document.querySelector('#player')).duration);
  check('player knows the duration', Math.abs(duration - 2) < 0.1, String(duration));
  await lines[1].click();
  // The file is 2 s long: seeking to 3.2 s lands at its end; line 1 (0.5 s) is inside it.
  await page.waitForFunction(() => /** @type {HTMLAudioElement} */ (document.querySelector('#player')).currentTime >= 1.9, null, { timeout: 10000 });
  await lines[0].click();
  await page.waitForFunction(() => Math.abs(/** @type {HTMLAudioElement} */ (document.querySelector('#player')).currentTime - 0.5) < 0.3, null, { timeout: 10000 });
  const t = await page.evaluate(() => /** @type {HTMLAudioElement} */ (document.querySelector('#player')).currentTime);
  check('a click on a line seeks the player', Math.abs(t - 0.5) < 0.3, String(t));
  await page.click('#history-entry');
  const linked = JSON.parse((await page.textContent('body')) ?? '{}');
  check('the recording page links its history entry', linked.id === entry?.id && linked.recording_id === entry?.recording_id,
    JSON.stringify(linked).slice(0, 300));
} catch (err) {
  check('browser run', false, String(err));
} finally {
  await browser.close();
  crm.close();
}
process.exit(failed ? 1 : 0);
