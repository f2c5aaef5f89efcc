// The ringer's flashing title across an in-page (htmx boosted) navigation,
// in headless Chromium against the real binary, kamailio and baresip (bob
// calls alice):
//
//   node server/web/e2e/ringtitle.mjs <softphone binary>
//
// While a call rings in, the person goes from the phone page to History.
// The flash alternates "☎ Incoming call" with History's own title, and
// when the call stops ringing History's title stays: the flash brought back
// the phone page's title each second, and the stop left it for good.
// Run inside `unshare -n` (scripts/e2e.sh). Prints "N passed, N failed";
// non-zero on a failure.
import { chromium } from 'playwright-core';
import { kamailio, startPhone, stopPhone } from './peers.mjs';
import { aliceHome, chromiumArgs, tally } from './alice.mjs';
import { baresip } from './tones.mjs';

const [binary] = process.argv.slice(2);
if (!binary) {
  console.error('usage: node server/web/e2e/ringtitle.mjs <softphone binary>');
  process.exit(2);
}

const t = tally();
const { check } = t;

let kam, app, bob, browser, page;
try {
  kam = await kamailio();
  app = startPhone(binary, aliceHome(binary, kam.port, 'ringtitle'), { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' } });
  const url = await app.url;
  bob = await baresip({ user: 'bob', pass: 'bobpw', registrar: `127.0.0.1:${kam.port}`, hz: 440 });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: chromiumArgs('--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'),
  });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await ctx.grantPermissions(['microphone'], { origin: new URL(url).origin });
  page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.softphone?.audio?.state === 'ready', null, { timeout: 15000 });
  const phoneTitle = await page.title();
  // History's own title, seen once without a ring.
  await page.click('a[href="/history"]');
  await page.waitForFunction(() => location.pathname === '/history' && !document.title.startsWith('☎'), null, { timeout: 10000 });
  const historyTitle = await page.title();
  await page.click('a[href="/"]');
  await page.waitForFunction((t) => location.pathname === '/' && document.title === t, phoneTitle, { timeout: 10000 });
  check('the pages have titles of their own', phoneTitle !== historyTitle && historyTitle !== '', `${phoneTitle} / ${historyTitle}`);

  // Every title written from now on.
  await page.evaluate(() => {
    window.__titles = [];
    new MutationObserver(() => window.__titles.push(document.title))
      .observe(document.head, { subtree: true, childList: true, characterData: true });
  });
  await bob.ctrl('dial', `sip:alice@127.0.0.1:${kam.port}`);
  await page.waitForSelector('#calls [data-state="ringing-in"]', { timeout: 20000 });
  await page.waitForFunction(() => document.title.startsWith('☎'), null, { timeout: 10000 });
  await page.click('a[href="/history"]');
  await page.waitForFunction(() => location.pathname === '/history', null, { timeout: 10000 });
  await page.waitForSelector('#calls [data-state="ringing-in"]', { timeout: 10000 });
  // Four flashes on History.
  const from = await page.evaluate(() => window.__titles.length);
  await page.waitForFunction((n) => window.__titles.length >= n + 4, from, { timeout: 10000 });
  const seen = await page.evaluate((n) => window.__titles.slice(n), from);
  const plain = seen.filter((t) => !t.startsWith('☎'));
  check('the flash alternates with History\'s title', plain.length > 0 && plain.every((t) => t === historyTitle), JSON.stringify(seen));
  await bob.ctrl('hangup');
  await page.waitForSelector('#calls [data-state="ringing-in"]', { state: 'detached', timeout: 15000 });
  const after = await page.title();
  check('History\'s title stays when the call stops ringing', after === historyTitle, after);
  check('no script errors', errors.length === 0, errors.join(' | '));
} catch (e) {
  check('ring title walk', false, String(e?.stack ?? e));
  if (bob) console.log('bob log:\n' + bob.log().slice(-1500));
} finally {
  if (t.failed && app) console.log('phone log:\n' + app.log().split('\n').slice(-60).join('\n'));
  if (browser) await browser.close().catch(() => {});
  if (bob) await bob.quit().catch(() => {});
  if (app) await stopPhone(app.proc).catch(() => {});
  if (kam) kam.stop();
}
t.exit();
