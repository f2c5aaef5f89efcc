// A copy of the phone page in another tab, in headless Chromium against
// the real binary, kamailio and baresip ("bob" answers):
//
//   node server/web/e2e/tabcopy.mjs <softphone binary>
//
// The browser copies a tab's sessionStorage, where the page keeps its tab
// id, into a tab opened from it (a link opened in a new tab, Duplicate,
// window.open). The copy is another tab: it gets an id of its own, while a
// reload keeps the id. With one id the two pages were one tab to the
// phone: both said they held the audio, and a call opened the microphones
// of both, the copy's in the background too. Run inside `unshare -n`
// (scripts/e2e.sh). Prints "N passed, N failed"; non-zero on a failure.
import { chromium } from 'playwright-core';
import { kamailio, startPhone, stopPhone } from './peers.mjs';
import { aliceHome, chromiumArgs, tally } from './alice.mjs';
import { baresip } from './tones.mjs';

const [binary] = process.argv.slice(2);
if (!binary) {
  console.error('usage: node server/web/e2e/tabcopy.mjs <softphone binary>');
  process.exit(2);
}

const t = tally();
const { check } = t;

const holds = (p) => p.waitForFunction(() => document.querySelector('#audio-holder')?.dataset.holder === window.softphone?.tab &&
  window.softphone?.audio?.state === 'ready', null, { timeout: 15000 });
const tab = (p) => p.evaluate(() => window.softphone.tab);
const mic = (p) => p.evaluate(() => ({ asked: window.__askedMic, active: !!window.softphone.audio.mic }));

let kam, app, bob, browser;
try {
  kam = await kamailio();
  app = startPhone(binary, aliceHome(binary, kam.port, 'tabcopy'), { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' } });
  const url = await app.url;
  bob = await baresip({ user: 'bob', pass: 'bobpw', registrar: `127.0.0.1:${kam.port}`, hz: 440 });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: chromiumArgs('--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'),
  });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await ctx.grantPermissions(['microphone'], { origin: new URL(url).origin });
  await ctx.addInitScript(() => {
    const md = navigator.mediaDevices, gum = md.getUserMedia.bind(md);
    window.__askedMic = 0;
    md.getUserMedia = (c) => { window.__askedMic++; return gum(c); };
  });
  const errors = [];
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await holds(page);
  const first = await tab(page);
  await page.reload();
  await holds(page);
  check('a reload keeps the tab id', (await tab(page)) === first, `${first} -> ${await tab(page)}`);

  // The page opens a copy of itself (its sessionStorage copied).
  const [copy] = await Promise.all([ctx.waitForEvent('page'), page.evaluate(() => { window.open('/'); })]);
  copy.on('pageerror', (e) => errors.push(String(e)));
  await copy.waitForFunction(() => window.softphone?.audio?.state === 'ready', null, { timeout: 15000 });
  const copied = await copy.evaluate(() => sessionStorage.length > 0);
  check('the copy is a tab of its own', (await tab(copy)) !== first, `both ${first}; storage copied: ${copied}`);
  await copy.reload();
  await copy.waitForFunction(() => window.softphone?.audio?.state === 'ready', null, { timeout: 15000 });
  const copyID = await tab(copy);
  check('the copy keeps its own id through a reload', copyID !== first, copyID);

  // The first page takes the audio back and calls bob: only its microphone opens.
  await page.bringToFront();
  await page.evaluate(() => window.softphone.audio.take());
  await holds(page);
  await page.fill('#number', 'bob');
  await page.click('#dial-form button[type="submit"]');
  await page.waitForSelector('#calls [data-call-id][data-state="active"]', { timeout: 20000 });
  await page.waitForFunction(() => window.softphone.audio.state === 'live', null, { timeout: 15000 });
  const [m1, m2] = [await mic(page), await mic(copy)];
  check('the page that holds the audio has its microphone open', m1.active, JSON.stringify(m1));
  check('the copy in the background does not', !m2.active && m2.asked === 0, JSON.stringify(m2));
  await page.click('#calls [data-state="active"] [data-action="hangup"]');
  await page.waitForSelector('#calls [data-calls="0"]', { state: 'attached', timeout: 15000 }).catch(() => {});
  check('no script errors', errors.length === 0, errors.join(' | '));
} catch (e) {
  check('tab copy walk', false, String(e?.stack ?? e));
  if (bob) console.log('bob log:\n' + bob.log().slice(-1500));
} finally {
  if (t.failed && app) console.log('phone log:\n' + app.log().split('\n').slice(-80).join('\n'));
  if (browser) await browser.close().catch(() => {});
  if (bob) await bob.quit().catch(() => {});
  if (app) await stopPhone(app.proc).catch(() => {});
  if (kam) kam.stop();
}
t.exit();
