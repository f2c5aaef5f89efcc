// The service worker's answer to a click on a call's notification, in
// headless Chromium against the real binary:
//
//   node server/web/e2e/swopen.mjs <softphone binary>
//
// With a phone page open, a click (Answer) is handed to that page and no
// window is opened. With none open (the page closed while the call rang:
// the notification asks for a click and stays), the click opens the phone
// page (clients.openWindow('/')); it did nothing. Headless Chromium shows
// no notification to click: the test dispatches notificationclick in the
// service worker with a real notification of its registration, and notes
// openWindow (an untrusted event may not open a window). Run inside
// `unshare -n` (scripts/e2e.sh). Prints "N passed, N failed"; non-zero on a
// failure.
import { chromium } from 'playwright-core';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPhone, stopPhone } from './peers.mjs';
import { chromiumArgs, tally } from './alice.mjs';

const [binary] = process.argv.slice(2);
if (!binary) {
  console.error('usage: node server/web/e2e/swopen.mjs <softphone binary>');
  process.exit(2);
}

const t = tally();
const { check } = t;

// click shows a call's notification from the service worker's registration
// and dispatches a click on its Answer; it gives the windows opened.
const click = (sw, call) => sw.evaluate(async (call) => {
  const opened = []; let heard;
  const open = new Promise((res) => { heard = res; });
  Object.defineProperty(self.clients, 'openWindow', {
    configurable: true, value: (u) => { opened.push(u); heard(); return Promise.resolve(null); },
  });
  await self.registration.showNotification('Incoming call', { tag: 'call-' + call, data: { call }, requireInteraction: true,
    actions: [{ action: 'answer', title: 'Answer' }, { action: 'decline', title: 'Decline' }] });
  const [n] = await self.registration.getNotifications({ tag: 'call-' + call });
  self.dispatchEvent(new NotificationEvent('notificationclick', { notification: n, action: 'answer' }));
  // openWindow, or 3 s without it (the page's message is awaited by the caller).
  await Promise.race([open, new Promise((r) => setTimeout(r, 3000))]);
  return opened;
}, call);

let app, browser;
try {
  const home = mkdtempSync(join(tmpdir(), 'e2e-swopen-'));
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ sip: { listen: '127.0.0.1:0' } }));
  app = startPhone(binary, home, { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' } });
  const url = await app.url;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: chromiumArgs(),
  });
  const ctx = await browser.newContext();
  await ctx.grantPermissions(['notifications'], { origin: new URL(url).origin });
  const keep = await ctx.newPage(); // keeps the browser's context when the phone page is gone
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const swSeen = ctx.waitForEvent('serviceworker', { timeout: 15000 });
  await page.goto(url);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  const sw = ctx.serviceWorkers()[0] ?? await swSeen;
  // The page hears the message the worker posts.
  await page.evaluate(() => {
    window.__swMessages = [];
    navigator.serviceWorker.addEventListener('message', (e) => window.__swMessages.push(e.data));
  });
  const withPage = await click(sw, 'c-open');
  await page.waitForFunction(() => window.__swMessages.length > 0, null, { timeout: 5000 }).catch(() => {});
  const msgs = await page.evaluate(() => window.__swMessages);
  check('a phone page open: the click goes to it, no window opened', withPage.length === 0 &&
    msgs.some((m) => m.action === 'answer' && m.call === 'c-open'), JSON.stringify({ withPage, msgs }));
  check('no script errors', errors.length === 0, errors.join(' | '));
  await page.close();
  const none = await sw.evaluate(async () => {
    for (let i = 0; i < 250; i++) {
      if ((await self.clients.matchAll({ type: 'window', includeUncontrolled: true })).length === 0) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  });
  check('the phone page is gone', none);
  const opened = await click(sw, 'c-closed');
  check('no phone page open: the click opens the phone page', opened.length === 1 && opened[0] === '/', JSON.stringify(opened));
  await keep.close();
} catch (e) {
  check('service worker walk', false, String(e?.stack ?? e));
} finally {
  if (t.failed && app) console.log('phone log:\n' + app.log().split('\n').slice(-40).join('\n'));
  if (browser) await browser.close().catch(() => {});
  if (app) await stopPhone(app.proc).catch(() => {});
}
t.exit();
