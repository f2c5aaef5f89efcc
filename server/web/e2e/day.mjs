// End-to-end walk through the phone pages with the real binary in headless
// Chromium (Debian's /usr/bin/chromium, driven by playwright-core).
//
//   node server/web/e2e/day.mjs <softphone binary> [screenshot folder] [--full] [--day]
//
// It starts the binary with a fresh home (--home, --no-browser), opens the
// printed link, walks every page (Phone, Contacts, History, Recordings,
// Settings) at desktop and phone (360 px) width, adds a contact, checks that
// a wrong setting is refused next to its field, switches the language to
// German, and keeps a screenshot of each step in test-artifacts/ (or the
// folder given). Run it inside `unshare -n` so Chromium's WebRTC stays on
// loopback. Prints "N passed, N failed" and exits non-zero on a failure.
// --full also switches on the local API in the Integration tab and checks
// GET /accounts on its port, and sends a webhook test event to a receiver
// started here (needs the real binary with the API and webhook sender).
// --day also runs a working day against real peers (kamailio, baresip, sox):
// an account added in the settings registers, a call to baresip from the dial
// pad is heard (the speaker meter moves with its tone), hold, resume, DTMF,
// hang up, the history entry is tagged and noted, and an incoming call is
// answered with a click.
import { chromium } from 'playwright-core';
import { startPhone, stopPhone } from './peers.mjs';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer } from 'node:http';
import { apiClient } from '../../api/e2e/client.mjs';

const full = process.argv.includes('--full');
const dayRun = process.argv.includes('--day');
const [binary, outArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!binary) {
  console.error('usage: node server/web/e2e/day.mjs <softphone binary> [screenshot folder]');
  process.exit(2);
}
const out = resolve(outArg ?? 'test-artifacts');
mkdirSync(out, { recursive: true });
const home = mkdtempSync(join(tmpdir(), 'softphone-e2e-'));

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log('ok   ' + name); } else { failed++; console.log('FAIL ' + name + (detail ? ': ' + detail : '')); }
}


const app = startPhone(binary, home);
let browser;
try {
  const url = await app.url;
  check('printed link has a one-time key', /^http:\/\/127\.0\.0\.1:\d+\/\?key=[0-9a-f]{64}$/.test(url), url);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--allow-loopback-in-peer-connection',
      '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream',
      ...(process.env.FAKE_MIC ? ['--use-file-for-fake-audio-capture=' + process.env.FAKE_MIC] : [])],
  });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await ctx.grantPermissions(['microphone', 'notifications'], { origin: new URL(url).origin });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // Refused forms (422) and a dial without an account (400) are on purpose; Chromium logs them as errors.
  page.on('console', (m) => { if (m.type() === 'error' && !/status of (400|422)/.test(m.text())) errors.push(m.text()); });
  const shot = async (name) => page.screenshot({ path: join(out, name + '.png'), fullPage: true });

  // The link opens the phone and sets the session; the key is gone afterwards.
  await page.goto(url);
  check('link opens the phone page', new URL(page.url()).pathname === '/' && !page.url().includes('key='), page.url());
  // No account yet: the welcome card (issue 16 item 8); "Not now" shows the dial pad.
  check('first run shows the welcome card', await page.isVisible('#welcome-form'));
  await page.goto(new URL(await page.getAttribute('#welcome-skip', 'href'), url).href);
  await page.waitForSelector('#dial-form');
  await page.waitForFunction(() => document.querySelector('#audio-text')?.textContent !== '', null, { timeout: 15000 }).catch(() => {});
  check('the audio sign says who holds the audio', (await page.textContent('#audio-text'))?.length > 0);
  await shot('01-phone');
  const again = await (await browser.newContext()).newPage();
  const res = await again.goto(url);
  check('the link works only once', res.status() === 401 && (await again.content()).includes('softphone'));
  await again.context().close();

  // Keyboard: the first Tab reaches the skip link.
  await page.keyboard.press('Tab');
  check('skip link comes first', await page.evaluate(() => document.activeElement?.classList.contains('skip')));

  // Dialling from the dial pad: a call appears, or (no account yet) the phone says why.
  for (const k of ['1', '2', '3']) await page.click(`#dial-form [data-key="${k}"]`);
  check('dial pad types into the number field', (await page.inputValue('#number')) === '123');
  await page.click('#dial-form button[type=submit]');
  await page.waitForFunction(() => document.querySelector('#calls [data-call-id]') || document.querySelector('#flash')?.textContent?.trim(), null, { timeout: 10000 }).catch(() => {});
  const dialed = await page.evaluate(() => ({ call: !!document.querySelector('#calls [data-call-id]'), flash: document.querySelector('#flash')?.textContent?.trim() }));
  check('dialling shows the call or a reason', dialed.call || !!dialed.flash, JSON.stringify(dialed));
  await shot('01b-dialled');
  if (dialed.call) {
    // Hotkeys (defaults Alt+P hold, Alt+H hang up) act on the call.
    await page.waitForSelector('#calls [data-state="active"]', { timeout: 10000 }).catch(() => {});
    await page.locator('main h1').click();
    await page.keyboard.press('Alt+P');
    await page.waitForSelector('#calls [data-state="hold"]', { timeout: 10000 }).catch(() => {});
    check('hotkey holds the call', await page.isVisible('#calls [data-state="hold"]'));
    await shot('01c-held');
  }
  const hang = await page.$('#calls [data-action="hangup"]');
  if (hang) {
    await hang.click();
    await page.waitForSelector('#calls [data-calls="0"]', { timeout: 10000 }).catch(() => {});
    check('hang up ends the call', await page.isVisible('#calls [data-calls="0"]'));
  }

  // Every page from the navigation.
  for (const [name, title, file] of [['Contacts', 'Contacts', '02-contacts'], ['History', 'History', '03-history'],
    ['Recordings', 'Recordings', '04-recordings'], ['Settings', 'Settings', '05-settings'], ['Phone', 'Phone', '06-phone-again']]) {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
    await page.waitForFunction((t) => document.querySelector('main h1')?.textContent === t, title, { timeout: 10000 }).catch(() => {});
    check('page ' + name, (await page.textContent('main h1')) === title, await page.textContent('main h1'));
    await shot(file);
  }

  // A contact: added, listed, findable.
  await page.goto(new URL('/contacts', url).href);
  await page.fill('#f-name', 'Bob Builder');
  await page.fill('#f-number', 'tel:+49-30-1234');
  await page.click('#contact-form button[type=submit]');
  await page.waitForSelector('#contact-list >> text=Bob Builder', { timeout: 10000 }).catch(() => {});
  check('contact added', (await page.textContent('#contact-list'))?.includes('+49301234'));
  await shot('07-contact-added');

  // A wrong setting is refused with a message next to its field.
  await page.goto(new URL('/settings', url).href);
  await page.fill('#f-api\\.port', '70000');
  await page.click('#sec-api button[type=submit]');
  await page.waitForSelector('#err-api\\.port', { timeout: 10000 }).catch(() => {});
  check('bad port refused next to the field', await page.isVisible('#err-api\\.port'));
  await shot('08-settings-error');

  if (full) await integration(page, shot);
  if (dayRun) await (await import('./workday.mjs')).workday(page, shot, url, check);

  // Small screens: every page readable at 360 px without sideways scrolling.
  await page.setViewportSize({ width: 360, height: 740 });
  for (const p of ['/', '/contacts', '/history', '/settings']) {
    await page.goto(new URL(p, url).href);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    check('360 px wide ' + p, wide <= 362, 'scrollWidth ' + wide);
    await shot('09-narrow' + (p === '/' ? '-phone' : p.replace('/', '-')));
  }
  await page.setViewportSize({ width: 1280, height: 900 });

  // German: the language setting changes every page at once.
  await page.goto(new URL('/settings', url).href);
  await page.selectOption('#f-appearance\\.language', 'de');
  await Promise.all([
    page.waitForEvent('load', { timeout: 10000 }).catch(() => {}),
    page.click('#sec-appearance button[type=submit]'),
  ]);
  await page.waitForFunction(() => document.documentElement.lang === 'de', null, { timeout: 10000 }).catch(() => {});
  check('settings page in German', (await page.textContent('main h1')) === 'Einstellungen', await page.textContent('main h1'));
  await shot('10-settings-de');
  await page.getByRole('navigation').getByRole('link', { name: 'Telefon', exact: true }).click();
  await page.waitForSelector('text=Wahlwiederholung', { timeout: 10000 }).catch(() => {});
  check('phone page in German', (await page.textContent('main h1')) === 'Telefon');
  await shot('11-phone-de');

  check('no script errors', errors.length === 0, errors.join(' | '));
} catch (e) {
  check('run', false, String(e?.stack ?? e));
} finally {
  await browser?.close().catch(() => {});
  const code = await stopPhone(app.proc);
  check('binary stops cleanly on SIGINT', code === 0, 'exit ' + code + '\n' + app.log().slice(-2000));
  rmSync(home, { recursive: true, force: true });
}
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

// freePort asks the system for a free TCP port on loopback.
function freePort() {
  return new Promise((res) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => { const p = srv.address().port; srv.close(() => res(p)); });
  });
}

// integration: the Integration tab switches on the local API at once, and a
// webhook test event reaches a receiver and its answer is shown.
async function integration(page, shot) {
  const apiPort = await freePort();
  await page.check('#sec-api input[name="api.enabled"]');
  await page.fill('#f-api\\.port', String(apiPort));
  await page.click('#sec-api button[type=submit]');
  await page.waitForSelector('#sec-api [role=status]', { timeout: 10000 }).catch(() => {});
  let status = 0;
  for (let i = 0; i < 50 && status !== 200; i++) {
    // Through the typed client of openapi.json, as an integrator's script would call it.
    status = await apiClient(`http://127.0.0.1:${apiPort}`).GET('/accounts').then((r) => (Array.isArray(r.data) ? r.response.status : -1), () => 0);
    if (status !== 200) await new Promise((r) => setTimeout(r, 200));
  }
  check('local API answers GET /accounts on its port', status === 200, 'status ' + status);
  await shot('08b-api-on');

  const got = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => { got.push({ method: req.method, url: req.url, body }); res.writeHead(200, { 'Content-Type': 'text/plain' }); res.end('thanks'); });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${receiver.address().port}/hook`;
  await page.fill('#f-webhooks\\.url', hook);
  await page.click('#sec-webhooks button[type=submit]');
  await page.waitForSelector('#sec-webhooks [role=status]', { timeout: 10000 }).catch(() => {});
  await page.click('#sec-webhook-test button[type=submit]');
  await page.waitForSelector('#webhook-answer', { timeout: 15000 }).catch(() => {});
  const shown = await page.textContent('#sec-webhook-test');
  check('webhook test event reaches the receiver', got.length === 1, JSON.stringify(got));
  check('the receiver\'s answer is shown', shown.includes('200') && shown.includes('thanks'), shown.slice(0, 200));
  await shot('08c-webhook-test');
  receiver.close();
}
