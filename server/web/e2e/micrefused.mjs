// A call whose microphone the browser refuses, in headless Chromium against
// the real binary, kamailio and baresip ("bob" answers):
//
//   node server/web/e2e/micrefused.mjs <softphone binary>
//
// The page holds the audio (ready: the browser has not been asked yet),
// the person calls bob and the browser refuses the microphone (headless
// Chromium without a grant dismisses the question, as a person's Block
// does). The page says the microphone is blocked and stops asking: it
// asked again at once each time, about 40 times a second (191 times in one
// run), its state flipping on the phone each time. Run inside `unshare -n`
// (scripts/e2e.sh). Prints "N passed, N failed"; non-zero on a failure.
import { chromium } from 'playwright-core';
import { kamailio, startPhone, stopPhone } from './peers.mjs';
import { aliceHome, chromiumArgs, tally } from './alice.mjs';
import { baresip } from './tones.mjs';

const [binary] = process.argv.slice(2);
if (!binary) {
  console.error('usage: node server/web/e2e/micrefused.mjs <softphone binary>');
  process.exit(2);
}

const t = tally();
const { check } = t;

let kam, app, bob, browser, page;
try {
  kam = await kamailio();
  app = startPhone(binary, aliceHome(binary, kam.port, 'micrefused'), { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' } });
  const url = await app.url;
  bob = await baresip({ user: 'bob', pass: 'bobpw', registrar: `127.0.0.1:${kam.port}`, hz: 440 });
  // No --use-fake-ui-for-media-stream and no grant: the browser's question
  // about the microphone is dismissed, getUserMedia fails NotAllowedError.
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: chromiumArgs('--use-fake-device-for-media-stream'),
  });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // Count the page's requests for the microphone.
  await ctx.addInitScript(() => {
    const md = navigator.mediaDevices, gum = md.getUserMedia.bind(md);
    window.__askedMic = 0;
    md.getUserMedia = (c) => { window.__askedMic++; return gum(c); };
  });
  page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector('#audio-holder')?.dataset.holder === window.softphone?.tab &&
    window.softphone?.audio?.state === 'ready', null, { timeout: 15000 });
  await page.fill('#number', 'bob');
  await page.click('#dial-form button[type="submit"]');
  await page.waitForSelector('#calls [data-call-id][data-state="active"]', { timeout: 20000 });
  // The phone has heard the tab is blocked: no tab holds the audio, and the
  // header says why.
  const settled = await page.waitForFunction(() => window.softphone.audio.state === 'mic-blocked' &&
    (document.querySelector('#audio-holder')?.dataset.holder ?? '') === '' &&
    document.querySelector('#audio-text')?.textContent === document.querySelector('#audio-words')?.dataset.blockedChrome,
  null, { timeout: 10000 }).then(() => true, () => false);
  const st = await page.evaluate(() => ({ asked: window.__askedMic, state: window.softphone.audio.state,
    holder: document.querySelector('#audio-holder')?.dataset.holder, words: document.querySelector('#audio-text')?.textContent }));
  check('the header says the microphone is blocked and no tab holds the audio', settled, JSON.stringify(st));
  // Once: the click on Call opens the microphone at once, and the page
  // keeps that start until the call's card comes (micswitch.mjs).
  check('the microphone was asked for once', st.asked === 1, 'asked ' + st.asked + ' times');
  await page.click('#calls [data-state="active"] [data-action="hangup"]');
  await page.waitForSelector('#calls [data-calls="0"]', { state: 'attached', timeout: 15000 }).catch(() => {});
  const after = await page.evaluate(() => window.__askedMic);
  check('not asked again during or after the call', after === st.asked, 'asked ' + after + ' times');
  check('no script errors', errors.length === 0, errors.join(' | '));
} catch (e) {
  check('refused microphone walk', false, String(e?.stack ?? e));
  if (bob) console.log('bob log:\n' + bob.log().slice(-1500));
} finally {
  if (t.failed && app) console.log('phone log:\n' + app.log().split('\n').slice(-80).join('\n'));
  if (browser) await browser.close().catch(() => {});
  if (bob) await bob.quit().catch(() => {});
  if (app) await stopPhone(app.proc).catch(() => {});
  if (kam) kam.stop();
}
t.exit();
