// The desktop notification of a call ringing in, in headless Chromium
// against the real binary, kamailio and baresip ("bob" calls):
//
//   node server/web/e2e/notify.mjs <softphone binary>
//
// A call ringing in shows a notification with Answer and Decline (through
// the service worker, requireInteraction: it stays until closed). Once the
// call no longer rings (the caller gave up, or it was answered on the
// page) its notification is gone: one left behind offers Answer on a call
// that no longer rings, and its click does nothing. Run inside `unshare -n`
// (scripts/e2e.sh). Prints "N passed, N failed"; non-zero on a failure.
import { chromium } from 'playwright-core';
import { kamailio, startPhone, stopPhone } from './peers.mjs';
import { aliceHome, chromiumArgs, tally } from './alice.mjs';
import { baresip } from './tones.mjs';

const [binary] = process.argv.slice(2);
if (!binary) {
  console.error('usage: node server/web/e2e/notify.mjs <softphone binary>');
  process.exit(2);
}

const t = tally();
const { check } = t;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// until polls fn (no event tells a notification went) and answers whether
// it held within ms.
async function until(fn, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) { if (await fn()) return true; await sleep(100); }
  return false;
}

let kam, app, bob, browser, page;

// shown is how many notifications of the call (by its tag) are up.
const shown = (id) => page.evaluate(async (id) => {
  const reg = await navigator.serviceWorker.getRegistration('/');
  return reg ? (await reg.getNotifications({ tag: 'call-' + id })).length : -1;
}, id);

async function ring() {
  await bob.ctrl('dial', `sip:alice@127.0.0.1:${kam.port}`);
  await page.waitForSelector('#calls [data-state="ringing-in"]', { timeout: 20000 });
  return page.getAttribute('#calls [data-state="ringing-in"]', 'data-call-id');
}

try {
  kam = await kamailio();
  app = startPhone(binary, aliceHome(binary, kam.port, 'notify'), { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' } });
  const url = await app.url;
  bob = await baresip({ user: 'bob', pass: 'bobpw', registrar: `127.0.0.1:${kam.port}`, hz: 440 });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: chromiumArgs('--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'),
  });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await ctx.grantPermissions(['microphone', 'notifications'], { origin: new URL(url).origin });
  page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));

  // 1. The caller gives up while it rings.
  const first = await ring();
  check('a call ringing in shows its notification', await until(async () => (await shown(first)) === 1), 'notifications: ' + await shown(first));
  await bob.ctrl('hangup');
  await page.waitForSelector('#calls [data-state="ringing-in"]', { state: 'detached', timeout: 15000 });
  check('the caller gave up: its notification is gone', await until(async () => (await shown(first)) === 0, 5000),
    'notifications still up: ' + await shown(first));

  // 2. Answered on the page.
  const second = await ring();
  check('the next call shows its notification', await until(async () => (await shown(second)) === 1), 'notifications: ' + await shown(second));
  await page.click(`#calls [data-call-id="${second}"] [data-action="answer"]`);
  await page.waitForSelector(`#calls [data-call-id="${second}"][data-state="active"]`, { timeout: 15000 });
  check('answered on the page: its notification is gone', await until(async () => (await shown(second)) === 0, 5000),
    'notifications still up: ' + await shown(second));
  await page.click(`#calls [data-call-id="${second}"] [data-action="hangup"]`);
  await page.waitForSelector('#calls [data-calls="0"]', { state: 'attached', timeout: 15000 }).catch(() => {});
  check('no script errors', errors.length === 0, errors.join(' | '));
} catch (e) {
  check('notification walk', false, String(e?.stack ?? e));
  if (bob) console.log('bob log:\n' + bob.log().slice(-1500));
} finally {
  if (t.failed && app) console.log('phone log:\n' + app.log().split('\n').slice(-80).join('\n'));
  if (browser) await browser.close().catch(() => {});
  if (bob) await bob.quit().catch(() => {});
  if (app) await stopPhone(app.proc).catch(() => {});
  if (kam) kam.stop();
}
t.exit();
