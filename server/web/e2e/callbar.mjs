// The live-call bar (issue 16) in headless Chromium, against the real
// binary, kamailio and two baresips (bob calls, carol takes a transfer):
//
//   node server/web/e2e/callbar.mjs <softphone binary> [screenshot folder]
//
// At 1280 and 360 px: a call ringing while the page is scrolled to the bottom
// of Settings is in the viewport, Answer uncovered; nothing on the page moves
// when the bar appears (element positions measured before and after). Then a
// working day by keyboard alone: Tab reaches Answer, Enter answers, digits
// typed reach bob as RFC 4733 events, the bar's keypad too, Hold and Resume,
// a blind transfer to carol, a hotkey answer and a hang up, with where the
// focus is asserted after each action (never <body>). Screenshots
// callbar-*.png of the pages with a call up at both widths. Run inside
// `unshare -n` (scripts/e2e.sh). Prints "N passed, N failed".
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { kamailio, startPhone, stopPhone } from './peers.mjs';
import { baresip } from './tones.mjs';

const [binary, outArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!binary) {
  console.error('usage: node server/web/e2e/callbar.mjs <softphone binary> [screenshot folder]');
  process.exit(2);
}
const out = resolve(outArg ?? 'test-artifacts');
mkdirSync(out, { recursive: true });

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log('ok   ' + name); } else { failed++; console.log('FAIL ' + name + (detail ? ': ' + detail : '')); }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(what, fn, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) { if (await fn()) return true; await sleep(100); }
  throw new Error('timed out waiting for ' + what);
}

// home writes alice's settings and password (secrets.json: no keyring here).
function home(kamPort) {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-callbar-'));
  const id = '2d8b6c74-9e3f-4f5c-9a0b-3c4d5e6f7081';
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({
    sip: { listen: '127.0.0.1:0' },
    // Debug: a failure then shows how each ACK was matched ("ACK outside
    // any call" names the dialog keys), for the flake of an answer whose
    // ACK never confirmed it ("answer not confirmed ... No ACK received").
    diagnostics: { log_level: 'debug' },
    accounts: [{ id, name: 'Alice', username: 'alice', domain: '127.0.0.1', port: kamPort, transport: 'udp', expiry_s: 300, enabled: true }],
  }));
  execFileSync(resolve(binary), ['--home', dir, 'secret', 'set', 'account:' + id], {
    input: 'alicepw', env: { ...process.env, HOME: dir },
  });
  return dir;
}

let kam, app, bob, carol, browser, page;
const shot = (name) => page.screenshot({ path: join(out, 'callbar-' + name + '.png') }).catch(() => {});

// focus tells what holds the keyboard focus: its id, or its tag.
const focus = () => page.evaluate(() => {
  const a = document.activeElement;
  return !a || a === document.body ? 'BODY' : a.id || a.tagName.toLowerCase();
});

// tabTo presses Tab (Shift+Tab with back) until the element with id has
// the focus; false when it is not reached within max presses.
async function tabTo(id, { back = false, max = 60 } = {}) {
  for (let i = 0; i < max; i++) {
    if ((await focus()) === id) return true;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  return (await focus()) === id;
}

// ring has bob call alice and waits for the bar to show the call ringing;
// it answers the call's id.
async function ring(from = bob) {
  await from.ctrl('dial', `sip:alice@127.0.0.1:${kam.port}`);
  await page.waitForSelector('#calls [data-state="ringing-in"]', { timeout: 20000 });
  return page.getAttribute('#calls [data-state="ringing-in"]', 'data-call-id');
}

async function noCall() {
  await page.waitForSelector('#calls [data-calls="0"]', { state: 'attached', timeout: 15000 });
}

// audioReady waits until this tab holds the audio and the header says so:
// the header's words change then, and with them (at 360 px) its height.
async function audioReady() {
  await page.waitForFunction(() => document.querySelector('#audio-holder')?.dataset.holder === window.softphone?.tab &&
    window.softphone?.audio?.state === 'ready' && document.querySelector('#take-audio-top')?.hidden, null, { timeout: 15000 })
    .catch(async (e) => {
      // Which part did not come (seen twice at load 20: the tab never took the audio).
      const why = await page.evaluate(() => JSON.stringify({ holder: document.querySelector('#audio-holder')?.dataset.holder,
        tab: window.softphone?.tab, state: window.softphone?.audio?.state, takeHidden: document.querySelector('#take-audio-top')?.hidden,
        focus: document.hasFocus(), visibility: document.visibilityState })).catch(() => '?');
      throw new Error(String(e?.message ?? e) + ' ' + why);
    });
}

// inView: the element lies wholly in the viewport and what is at its centre
// is the element itself (nothing covers it).
const inView = (sel) => page.evaluate((sel) => {
  const el = document.querySelector(sel);
  if (!el) return { ok: false, why: 'missing' };
  const r = el.getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const ok = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth && r.height > 0 && (top === el || el.contains(top));
  return { ok, why: JSON.stringify({ top: r.top, bottom: r.bottom, h: innerHeight, at: top?.id || top?.tagName }) };
}, sel);

// where is the position of elements on the screen and the scroll offset.
const where = (sels) => page.evaluate((sels) => ({
  y: scrollY,
  at: sels.map((s) => { const r = document.querySelector(s)?.getBoundingClientRect(); return r ? [Math.round(r.top), Math.round(r.left)] : null; }),
}), sels);

// firstPaintStays: the phone page as first painted (the live stream held
// off) and once the stream's state came lays out the same: what the stream
// fills must be in the first paint too, or the page moves when it comes (the
// header's office part, filled by the stream alone, grew the header by 48 px
// at 360 px; under load it came after "before" was measured below, and
// "nothing moves when the bar appears" saw the page shifted).
async function firstPaintStays(w, url) {
  const sels = ['header.top', 'main h1', '#dial-form', '#number', '#h-accounts'];
  const at = () => page.evaluate((sels) => sels.map((s) => {
    const r = document.querySelector(s)?.getBoundingClientRect();
    return r ? [Math.round(r.top), Math.round(r.height)] : null;
  }), sels);
  const off = (r) => r.abort();
  await page.route('**/events', off);
  // The first paint is compared in the same audio state as the live one:
  // the page the server rendered names this tab as the holder (right after
  // the previous page of this tab closed its socket it may not yet, and then
  // the header rightly offers "Use this tab" until the stream says more;
  // CI saw that once at 1280 px). A reload while this tab's socket is open
  // gives that paint.
  let first, holder;
  for (let i = 0; i < 5; i++) {
    await page.goto(url('/'));
    await page.waitForSelector('#dial-form');
    holder = await page.evaluate(() => ({ holder: document.querySelector('#audio-holder')?.dataset.holder, tab: window.softphone?.tab ?? sessionStorage.getItem('softphone-tab') }));
    first = await at();
    if (holder.holder && holder.holder === holder.tab) break;
    await page.waitForFunction(() => window.softphone?.audio?.state === 'ready', null, { timeout: 15000 });
  }
  await page.unroute('**/events', off);
  await page.goto(url('/'));
  await page.waitForSelector('#accounts [data-state="registered"]', { timeout: 20000 });
  await audioReady();
  const live = await at();
  check(`${w} px: the phone page lays out at its first paint as with the live state`, JSON.stringify(first) === JSON.stringify(live),
    JSON.stringify({ first, live, sels, holder }));
}

// reloadTakesAudioQuietly: a reload of the page that holds the audio, at
// 360 px, in the moment when the old page's socket has closed and the new
// one has not yet reported (the audio socket held back by the test until
// the page was told no tab holds the audio): the header says this tab's
// audio is connecting and offers no "Use this tab", at the height it keeps
// once the tab holds the audio again. Before, it offered the button, a row
// more, and took it back a moment later.
async function reloadTakesAudioQuietly(url) {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto(url('/'));
  await audioReady();
  let open;
  const gate = new Promise((r) => { open = r; });
  let held = true;
  await page.routeWebSocket(/\/audio\/ws/, async (ws) => {
    if (!held) { ws.connectToServer(); return; }
    // Open to the page, but the phone hears nothing yet: what the page
    // sends waits, then goes on in order.
    const waiting = [];
    let server = null;
    ws.onMessage((m) => (server ? server.send(m) : waiting.push(m)));
    await gate;
    server = ws.connectToServer();
    server.onMessage((m) => ws.send(m));
    for (const m of waiting) server.send(m);
  });
  const header = () => page.evaluate(() => ({
    h: Math.round(document.querySelector('header.top').getBoundingClientRect().height),
    take: !document.querySelector('#take-audio-top').hidden,
    text: document.querySelector('#audio-text').textContent,
    words: document.querySelector('#audio-words').dataset.connecting,
    focus: document.hasFocus(), vis: document.visibilityState, t: Math.round(performance.now()),
  }));
  await page.reload();
  await page.waitForFunction(() => document.querySelector('#audio-holder')?.dataset.holder === '' && window.softphone, null, { timeout: 15000 });
  const between = await header();
  held = false;
  open();
  await audioReady();
  const after = await header();
  check('a reload offers no "Use this tab" while the page takes the audio back', !between.take && between.text === between.words,
    JSON.stringify(between));
  check('the header keeps its height through a reload', between.h === after.h, JSON.stringify({ between, after }));
}

async function atWidth(w, h) {
  await page.setViewportSize({ width: w, height: h });
  const url = (p) => new URL(p, page.url()).href;
  await firstPaintStays(w, url);

  // The phone page: the call appears, nothing moves.
  await page.goto(url('/'));
  await page.waitForSelector('#accounts [data-state="registered"]', { timeout: 20000 });
  await audioReady();
  const sels = ['main h1', '#dial-form', '#number', '#h-accounts'];
  const before = await where(sels);
  let id = await ring();
  const after = await where(sels);
  check(`${w} px: nothing on the phone page moves when the bar appears`, JSON.stringify(before) === JSON.stringify(after),
    JSON.stringify({ before, after }));
  let v = await inView(`#call-${id}-answer`);
  check(`${w} px: Answer is in view on the phone page`, v.ok, v.why);
  await shot(`phone-ringing-${w}`);
  await page.click(`#call-${id}-answer`);
  await page.waitForSelector(`#call-${id}[data-state="active"]`, { timeout: 10000 });
  v = await inView(`#call-${id}-hangup`);
  check(`${w} px: Hang up is in view once answered`, v.ok, v.why);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  check(`${w} px: the bar fits the width`, wide <= w + 2, 'scrollWidth ' + wide);
  await shot(`phone-call-${w}`);
  // The content at the end of the page can be scrolled clear of the bar.
  await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
  const clear = await page.evaluate(() => {
    const bar = document.querySelector('#calls ul.calls').getBoundingClientRect();
    const last = document.querySelector('main').lastElementChild.getBoundingClientRect();
    return { ok: last.bottom <= bar.top + 1, last: last.bottom, bar: bar.top };
  });
  check(`${w} px: the end of the page scrolls clear of the bar`, clear.ok, JSON.stringify(clear));
  await page.click(`#call-${id}-hangup`);
  await noCall();

  // Settings, scrolled to the bottom: the ringing call is in view, and the
  // page under it stays where it was.
  await page.goto(url('/settings'));
  await audioReady();
  await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
  const last = ['main > :last-child', 'main h1'];
  const b2 = await where(last);
  id = await ring();
  const a2 = await where(last);
  // What the person sees is compared (positions in the viewport): a live
  // part of the page above may change its height meanwhile, which the
  // browser's scroll anchoring makes up for by moving the scroll offset.
  check(`${w} px: Settings scrolled down stays put when a call rings`, JSON.stringify(b2.at) === JSON.stringify(a2.at) && b2.y > 0,
    JSON.stringify({ b2, a2 }));
  for (const part of ['', '-answer', '-decline']) {
    v = await inView(`#call-${id}${part}`);
    check(`${w} px: the ringing call${part ? ' (' + part.slice(1) + ')' : ''} is in view at the bottom of Settings`, v.ok, v.why);
  }
  const big = await page.evaluate((id) => document.querySelector(`#call-${id}-answer`).getBoundingClientRect().height, id);
  check(`${w} px: Answer is large (at least 48 px high)`, big >= 48, 'height ' + big);
  await shot(`settings-ringing-${w}`);
  await page.click(`#call-${id}-decline`);
  await noCall();
}

// barSays checks that the live-call bar's message region (#callbar-msg)
// holds the words, is in view, and that #flash at the top stayed empty.
async function barSays(name, words) {
  const got = await page.waitForFunction(() => document.querySelector('#callbar-msg')?.textContent.trim() || null, null, { timeout: 8000 })
    .then((h) => h.jsonValue(), () => '');
  const v = await inView('#callbar-msg');
  const flash = await page.evaluate(() => document.querySelector('#flash')?.textContent.trim() ?? '');
  const live = await page.evaluate(() => { const m = document.querySelector('#callbar-msg'); return !!m?.closest('#live') && m.getAttribute('role') === 'alert'; });
  check(name, got === words && v.ok && flash === '' && live, JSON.stringify({ got, inView: v, flash, live }));
}

// german: the bar in German and the dark theme at 360 px fits the width;
// the phone page's dial pad sends DTMF during the call.
async function german() {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(new URL('/settings', page.url()).href);
  await page.selectOption('#f-appearance\\.language', 'de');
  await Promise.all([
    page.waitForEvent('load', { timeout: 10000 }).catch(() => {}),
    page.click('#sec-appearance button[type=submit]'),
  ]);
  await page.waitForFunction(() => document.documentElement.lang === 'de', null, { timeout: 10000 });
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto(new URL('/', page.url()).href);
  await page.selectOption('#theme-select', 'dark');
  await audioReady();
  const id = await ring();
  await page.click(`#call-${id}-answer`);
  await page.waitForSelector(`#call-${id}[data-state="active"]`, { timeout: 10000 });
  // The phone page's own dial pad sends tones during the call (and says so)
  // instead of typing into the number field.
  await page.waitForSelector('#dialpad-dtmf:not([hidden])', { timeout: 5000 })
    .then(() => check('the dial pad says it sends tones during a call', true)).catch(() => check('the dial pad says it sends tones during a call', false));
  await page.click('#dial-form [data-key="7"]');
  await until('bob hears 7', () => bob.log().includes("received event: '7'"), 8000)
    .then(() => check('the dial pad sends DTMF during a call', true))
    .catch(() => check('the dial pad sends DTMF during a call', false, bob.log().slice(-600)));
  check('the dial pad does not type into the number field during a call', (await page.inputValue('#number')) === '', await page.inputValue('#number'));
  await page.click(`#call-${id}-keypad-toggle`);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  check('360 px, German: the bar fits the width', wide <= 362, 'scrollWidth ' + wide);
  const v = await inView(`#call-${id}-hangup`);
  check('360 px, German: Auflegen is in view', v.ok && (await page.textContent(`#call-${id}-hangup`)) === 'Auflegen', v.why);
  await shot('phone-call-360-de-dark');
  // A failing action of the bar, in German words beside the bar.
  await page.click(`#call-${id}-transfer-toggle`);
  await page.fill(`#xfer-${id}`, 'car<ol');
  await page.click(`#call-${id}-transfer-blind`);
  await barSays('360 px, German: a failed transfer says why beside the bar', 'Die Nummer enthält Zeichen, die eine Telefonnummer nicht haben kann.');
  await shot('failed-action-360-de-dark');
  // The next action of the bar (a key of its keypad, still open) clears it.
  await page.click(`#call-${id}-transfer-toggle`);
  await page.click(`#call-${id}-dtmf-1`);
  await page.waitForFunction(() => document.querySelector('#callbar-msg')?.textContent === '', null, { timeout: 5000 })
    .then(() => check('the next action of the bar clears its message', true), () => check('the next action of the bar clears its message', false));
  // A second call rings while the bar is full (keypad open): it is brought
  // into view within the bar, nothing on the page under it moves.
  const before = await where(['main h1', '#dial-form']);
  await carol.ctrl('dial', `sip:alice@127.0.0.1:${kam.port}`);
  await page.waitForSelector('#calls [data-state="ringing-in"]', { timeout: 20000 });
  const id2 = await page.getAttribute('#calls [data-state="ringing-in"]', 'data-call-id');
  await page.waitForFunction((id2) => {
    const r = document.getElementById(`call-${id2}-answer`)?.getBoundingClientRect();
    return r && r.bottom <= innerHeight && r.top >= 0;
  }, id2, { timeout: 5000 }).catch(() => {});
  const v2 = await inView(`#call-${id2}-answer`);
  check('360 px: a second call ringing while the bar is full is in view', v2.ok, v2.why);
  check('360 px: nothing moves when the second call rings', JSON.stringify(before) === JSON.stringify(await where(['main h1', '#dial-form'])));
  await shot('two-calls-360-de-dark');
  await page.click(`#call-${id2}-decline`);
  await page.waitForSelector(`#call-${id2}`, { state: 'detached', timeout: 10000 });
  await page.click(`#call-${id}-hangup`);
  await noCall();
  // The card saying how the call ended (words) stands in the bar, in view.
  const ended = await page.waitForSelector('#calls .ended-call', { timeout: 5000 }).then(() => true, () => false);
  if (ended) {
    const v3 = await inView('#calls .ended-call');
    check('360 px: the card of the ended call is in view', v3.ok, v3.why);
    await shot('ended-360-de-dark');
  }
}

// keyboardDay: everything by keyboard, the focus checked after each action.
async function keyboardDay() {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(new URL('/', page.url()).href);
  await page.waitForSelector('#accounts [data-state="registered"]', { timeout: 20000 });
  await audioReady();
  const id = await ring();

  // Tab from the top of the page reaches Answer before the page's content.
  const order = [];
  let reached = false;
  for (let i = 0; i < 40 && !reached; i++) {
    await page.keyboard.press('Tab');
    const f = await focus();
    order.push(f);
    reached = f === `call-${id}-answer`;
  }
  check('keys: Tab reaches Answer, before the dial form', reached && !order.includes('number'), order.join(' '));
  await page.keyboard.press('Enter');
  await page.waitForSelector(`#call-${id}[data-state="active"]`, { timeout: 10000 });
  await page.waitForFunction((id) => document.activeElement?.id === 'call-' + id, id, { timeout: 5000 }).catch(() => {});
  check('keys: after Answer the focus is on the call', (await focus()) === `call-${id}`, await focus());

  // Digits typed (not in a field) reach bob as RFC 4733 events.
  for (const k of ['5', '9', '#']) await page.keyboard.press(k);
  await until('bob hears 5 9 #', () => ['5', '9', '#'].every((d) => bob.log().includes(`received event: '${d}'`)), 8000)
    .then(() => check('keys: typed digits reach bob as DTMF', true))
    .catch(() => check('keys: typed digits reach bob as DTMF', false, bob.log().slice(-600)));
  await page.waitForSelector(`#call-${id}-sent output:has-text("59#")`, { timeout: 5000 })
    .then(() => check('keys: the bar shows the digits sent', true)).catch(() => check('keys: the bar shows the digits sent', false));
  check('keys: after DTMF the focus is still on the call', (await focus()) === `call-${id}`, await focus());

  // Hold and Resume: the same button keeps the focus.
  await page.keyboard.press('Tab');
  check('keys: Tab from the call goes to Hold', (await focus()) === `call-${id}-hold`, await focus());
  await page.keyboard.press('Enter');
  await page.waitForSelector(`#call-${id}[data-state="hold"]`, { timeout: 10000 });
  await page.waitForSelector(`#call-${id}-hold[data-action="resume"]`, { timeout: 5000 });
  check('keys: after Hold the focus is on Resume', (await focus()) === `call-${id}-hold`, await focus());
  await page.keyboard.press('Enter');
  await page.waitForSelector(`#call-${id}[data-state="active"]`, { timeout: 10000 });
  await page.waitForSelector(`#call-${id}-hold[data-action="hold"]`, { timeout: 5000 });
  check('keys: after Resume the focus is on Hold', (await focus()) === `call-${id}-hold`, await focus());
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await page.waitForSelector(`#call-${id}-mute[aria-pressed="true"]`, { timeout: 10000 });
  check('keys: after Mute the focus is on Unmute', (await focus()) === `call-${id}-mute`, await focus());
  await page.keyboard.press('Enter');
  await page.waitForSelector(`#call-${id}-mute[aria-pressed="false"]`, { timeout: 10000 });
  check('keys: after Unmute the focus is on Mute', (await focus()) === `call-${id}-mute`, await focus());
  // Unmute pressed the moment the bar shows it, before htmx has processed
  // the morphed button (its settle delay, made long here so the press is
  // sure to fall inside it): the press unmutes, it does not mute again.
  await page.evaluate(() => { window.htmx.config.defaultSettleDelay = 3000; });
  await page.keyboard.press('Enter');
  await page.waitForSelector(`#call-${id}-mute[aria-pressed="true"]`, { timeout: 10000 });
  await page.keyboard.press('Enter');
  await page.waitForSelector(`#call-${id}-mute[aria-pressed="false"]`, { timeout: 10000 })
    .then(() => check('keys: Unmute pressed at once after Mute unmutes', true))
    .catch(async () => check('keys: Unmute pressed at once after Mute unmutes', false,
      await page.evaluate((id) => document.getElementById(`call-${id}-mute`)?.outerHTML ?? 'no button', id).catch((e) => String(e))));
  await page.evaluate(() => { window.htmx.config.defaultSettleDelay = 20; });

  // The bar's keypad: opened with Enter, a key pressed with Enter; the
  // keypad stays open and the key keeps the focus across the update.
  check('keys: Tab reaches the keypad', await tabTo(`call-${id}-keypad-toggle`), await focus());
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  check('keys: Tab goes into the open keypad', (await focus()) === `call-${id}-dtmf-1`, await focus());
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter'); // 3
  await until('bob hears 3', () => bob.log().includes("received event: '3'"), 8000)
    .then(() => check('keys: the bar\'s keypad reaches bob', true))
    .catch(() => check('keys: the bar\'s keypad reaches bob', false, bob.log().slice(-600)));
  await page.waitForSelector(`#call-${id}-sent output:has-text("59#3")`, { timeout: 5000 }).catch(() => {});
  check('keys: after a keypad key the focus stays on it', (await focus()) === `call-${id}-dtmf-3`, await focus());
  check('keys: the keypad stays open across updates', await page.evaluate((id) => document.getElementById(`call-${id}-keypad`).open, id));
  await shot('keyboard-call-1280');

  // Blind transfer to carol, typed into the bar; the call leaves, the focus
  // goes to the number field.
  check('keys: Tab reaches Transfer', await tabTo(`call-${id}-transfer-toggle`), await focus());
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  check('keys: Tab goes to the transfer target', (await focus()) === `xfer-${id}`, await focus());
  // A transfer that fails (a character no number can hold) says why beside
  // the bar, in view, not in #flash at the top of the page (scrolled away).
  await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
  await page.keyboard.type('car<ol');
  await page.keyboard.press('Enter');
  await barSays('keys: a failed transfer says why beside the bar', 'The number has characters a phone number cannot have.');
  check('keys: after a failed transfer the focus stays in the target', (await focus()) === `xfer-${id}`, await focus());
  await page.fill(`#xfer-${id}`, '');
  // A bare name, as people type it: kamailio listens on a random port here
  // and baresip has no outbound proxy, so carol is reached only when the
  // completed target carries the account's port.
  const target = 'carol';
  await page.keyboard.type(target);
  // An update of the bar meanwhile (a tone sent from elsewhere) keeps the
  // open panel, the typed target and the focus in it.
  await page.evaluate((id) => fetch(`/calls/${id}/dtmf`, { method: 'POST', headers: { 'X-CSRF-Token': document.querySelector('meta[name="csrf-token"]').content,
    'Content-Type': 'application/x-www-form-urlencoded' }, body: 'digits=0' }), id);
  await page.waitForSelector(`#call-${id}-sent output:has-text("59#30")`, { timeout: 5000 }).catch(() => {});
  const kept = await page.evaluate((id) => ({ v: document.getElementById('xfer-' + id)?.value, open: document.getElementById(`call-${id}-transfer`)?.open,
    sent: document.querySelector(`#call-${id}-sent output`)?.textContent }), id);
  check('keys: an update keeps the typed transfer target and the panel open', kept.v === target && kept.open && kept.sent === '59#30', JSON.stringify(kept));
  check('keys: an update keeps the focus in the transfer target', (await focus()) === `xfer-${id}`, await focus());
  await page.keyboard.press('Enter');
  await until('carol gets bob\'s call', () => /call established|Call established/i.test(carol.log()), 15000)
    .then(() => check('keys: the transfer reaches carol', true))
    .catch(() => check('keys: the transfer reaches carol', false, 'bob:\n' + bob.log().slice(-800) + '\ncarol:\n' + carol.log().slice(-800)));
  await noCall();
  await page.waitForFunction(() => document.activeElement?.id === 'number', null, { timeout: 5000 }).catch(() => {});
  check('keys: after the transfer the focus is on the number field', (await focus()) === 'number', await focus());

  // carol calls back: the answer hotkey (Alt+A) works from the number field,
  // which keeps the focus; Shift+Tab goes back into the bar to Hang up.
  const id2 = await ring(carol);
  await page.keyboard.press('Alt+A');
  await page.waitForSelector(`#call-${id2}[data-state="active"]`, { timeout: 10000 });
  check('keys: the Alt+A hotkey answers; the focus stays in the number field', (await focus()) === 'number', await focus());
  await page.keyboard.type('12');
  check('keys: digits typed into the number field stay there', (await page.inputValue('#number')) === '12', await page.inputValue('#number'));
  check('keys: Shift+Tab reaches Hang up', await tabTo(`call-${id2}-hangup`, { back: true }), await focus());
  await page.keyboard.press('Enter');
  await noCall();
  await page.waitForFunction(() => document.activeElement?.id === 'number', null, { timeout: 5000 }).catch(() => {});
  check('keys: after Hang up the focus is on the number field', (await focus()) === 'number', await focus());
  // The dial field's suggestions (GET /dial/suggest wants the page's token
  // and origin): the page's own request gets bob from the history.
  await page.fill('#number', '');
  await page.keyboard.type('bo');
  await page.waitForSelector('#dial-suggest option[value="bob"]', { state: 'attached', timeout: 10000 })
    .then(() => check('the dial field suggests bob from the history', true), () => check('the dial field suggests bob from the history', false));
  await page.fill('#number', '');
}

try {
  kam = await kamailio();
  app = startPhone(binary, home(kam.port), { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' } });
  const url = await app.url;
  bob = await baresip({ user: 'bob', pass: 'bobpw', registrar: `127.0.0.1:${kam.port}`, hz: 440 });
  carol = await baresip({ user: 'carol', pass: 'carolpw', registrar: `127.0.0.1:${kam.port}`, hz: 880 });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run',
      '--allow-loopback-in-peer-connection', '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'],
  });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await ctx.grantPermissions(['microphone', 'notifications'], { origin: new URL(url).origin });
  page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  for (const [w, h] of [[1280, 900], [360, 740]]) await atWidth(w, h);
  await keyboardDay();
  await german();
  await reloadTakesAudioQuietly((p) => new URL(p, page.url()).href);
  check('no script errors', errors.length === 0, errors.join(' | '));
} catch (e) {
  check('callbar walk', false, String(e?.stack ?? e));
  if (bob) console.log('bob log:\n' + bob.log().slice(-1500));
  if (kam) console.log('kamailio folder (log kept): ' + kam.dir);
  if (page) await page.screenshot({ path: join(out, 'callbar-failed.png') }).catch(() => {});
} finally {
  if (failed) {
    // The phone's side of whatever failed: its log and the end of its SIP trace.
    if (app) console.log('phone log:\n' + app.log().split('\n').slice(-150).join('\n'));
    const trace = page ? await page.evaluate(() => fetch('/diagnostics/sip-trace.txt').then((r) => r.text())).catch((e) => String(e)) : '';
    if (trace) console.log('phone SIP trace (end):\n' + trace.slice(-15000));
  }
  if (browser) await browser.close().catch(() => {});
  if (app) await stopPhone(app.proc);
  bob?.stop();
  carol?.stop();
  kam?.stop();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
