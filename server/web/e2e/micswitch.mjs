// A switch of microphone during a call carried by the fallback (PCM over
// the page's WebSocket), in headless Chromium against the real binary,
// kamailio and baresip ("bob" answers):
//
//   node server/web/e2e/micswitch.mjs <softphone binary>
//
// Inside `unshare -n` with loopback only, Chromium gathers no ICE
// candidate, so the call's audio takes the fallback. The page switches the
// microphone five times (what the microphone list's change does): the
// worklet that carries the call has one microphone chain feeding it, not
// six (each switch left the last one connected, kept alive for the call's
// life); one microphone track is live. Then a switch whose microphone the
// browser opens only after the call ended: that microphone is closed again
// (it stayed open until the next call). Prints "N passed, N failed";
// non-zero on a failure.
import { chromium } from 'playwright-core';
import { kamailio, startPhone, stopPhone } from './peers.mjs';
import { aliceHome, chromiumArgs, tally } from './alice.mjs';
import { baresip } from './tones.mjs';

const [binary] = process.argv.slice(2);
if (!binary) {
  console.error('usage: node server/web/e2e/micswitch.mjs <softphone binary>');
  process.exit(2);
}

const t = tally();
const { check } = t;

let kam, app, bob, browser, page;
try {
  kam = await kamailio();
  app = startPhone(binary, aliceHome(binary, kam.port, 'micswitch'), { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' } });
  const url = await app.url;
  bob = await baresip({ user: 'bob', pass: 'bobpw', registrar: `127.0.0.1:${kam.port}`, hz: 440 });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: chromiumArgs('--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'),
  });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await ctx.grantPermissions(['microphone'], { origin: new URL(url).origin });
  // The test's eyes: which nodes feed which (connect/disconnect noted), the
  // microphone streams the page opened, and a gate that holds the next
  // getUserMedia until the test lets it answer.
  await ctx.addInitScript(() => {
    const feeds = new Map();
    const con = AudioNode.prototype.connect, dis = AudioNode.prototype.disconnect;
    AudioNode.prototype.connect = function (d, ...a) {
      if (d instanceof AudioNode) { if (!feeds.has(d)) feeds.set(d, new Set()); feeds.get(d).add(this); }
      return con.call(this, d, ...a);
    };
    AudioNode.prototype.disconnect = function (d, ...a) {
      if (d === undefined) for (const s of feeds.values()) s.delete(this);
      else if (d instanceof AudioNode) feeds.get(d)?.delete(this);
      return dis.call(this, d, ...a);
    };
    window.__feeds = (n) => feeds.get(n)?.size ?? 0;
    const md = navigator.mediaDevices, gum = md.getUserMedia.bind(md);
    window.__streams = [];
    window.__gate = null;
    md.getUserMedia = async (c) => {
      const s = await gum(c);
      window.__streams.push(s);
      if (window.__gate) await window.__gate.promise;
      return s;
    };
    window.__liveMics = () => window.__streams.flatMap((s) => s.getTracks()).filter((t) => t.readyState === 'live').length;
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
  await page.waitForFunction(() => window.softphone.audio.path === 'pcm' && window.softphone.audio.state === 'live', null, { timeout: 15000 });
  // The click on Call opened the microphone once: the page stopped that
  // start until the call's card came, then opened it again (two requests,
  // the browser's recording sign flashing, a slower start).
  const asked = await page.evaluate(() => window.__streams.length);
  check('the microphone was opened once for the call', asked === 1, 'opened ' + asked + ' times');
  const before = await page.evaluate(() => window.__feeds(window.softphone.audio.node));
  for (let i = 0; i < 5; i++) await page.evaluate(() => window.softphone.audio.switchMic());
  const st = await page.evaluate(() => ({ feeds: window.__feeds(window.softphone.audio.node), live: window.__liveMics(), path: window.softphone.audio.path }));
  check('one microphone chain feeds the call after five switches', st.feeds === before && st.feeds === 1, `before ${before}, after ${JSON.stringify(st)}`);
  check('one microphone open after five switches', st.live === 1, JSON.stringify(st));
  // A switch the browser answers after the call ended.
  await page.evaluate(() => {
    let open; const promise = new Promise((r) => { open = r; });
    window.__gate = { promise, open };
    window.__switched = window.softphone.audio.switchMic();
  });
  await page.waitForFunction((n) => window.__streams.length >= n, asked + 6, { timeout: 10000 });
  await page.click('#calls [data-state="active"] [data-action="hangup"]');
  await page.waitForFunction(() => window.softphone.audio.state === 'ready' && window.softphone.audio.path === '', null, { timeout: 15000 });
  await page.evaluate(async () => { window.__gate.open(); await window.__switched; });
  const live = await page.evaluate(() => window.__liveMics());
  check('a microphone opened after the call ended is closed again', live === 0, live + ' live');
  check('no script errors', errors.length === 0, errors.join(' | '));
} catch (e) {
  check('microphone switch walk', false, String(e?.stack ?? e));
  if (bob) console.log('bob log:\n' + bob.log().slice(-1500));
} finally {
  if (t.failed && app) console.log('phone log:\n' + app.log().split('\n').slice(-60).join('\n'));
  if (browser) await browser.close().catch(() => {});
  if (bob) await bob.quit().catch(() => {});
  if (app) await stopPhone(app.proc).catch(() => {});
  if (kam) kam.stop();
}
t.exit();
