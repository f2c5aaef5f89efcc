// The tab's audio in the browsers users have (issue 13), against the real
// binary, kamailio and baresip: Debian's chromium without the loopback
// flag or Debian's firefox-esr with default prefs (drivers.mjs), on a
// machine with loopback only or with a LAN-like address (scripts/netns.sh).
//
//   scripts/netns.sh lo|lan node server/web/e2e/browsers.mjs <binary> chromium|firefox [screenshot folder]
//
// Checks, in order: the header's words at the first paint with no tab; a
// call through the API with no tab: the phone opens its page, waits 5 s,
// answers 409 and dials nothing; the words for a blocked microphone and
// the dial guard ("Call anyway"); the same call again while the opened
// page is loaded: 201, and audio both ways by content (bob hears the
// page's 440 Hz, the page hears bob's 1000 Hz) over WebRTC on a LAN
// machine and over the fallback WebSocket on a loopback-only one; that page
// was never clicked and plays without a prompt (both browsers let a page
// that captures the microphone play); a second
// call from the page holds the first, and the held party hears nothing of
// it (the RTP sent to bob, captured); after the last call the microphone
// is closed and no packet passes; a call that ends while the page opens
// the microphone or gathers ICE candidates leaves the microphone closed
// and makes no late offer (which took the audio from the tab holding it);
// on a LAN machine, a page reloaded during a call keeps its audio when the
// old page's close beacon comes late.
// Prints "ok"/"FAIL" lines, the measured
// click-to-microphone time, and "N passed, N failed"; exits 1 on a failure.
import { mkdtempSync, writeFileSync, readFileSync, existsSync, chmodSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { kamailio, freePort, startPhone, stopPhone } from './peers.mjs';
import { baresip, tone, sine, capture } from './tones.mjs';
import { launch } from './drivers.mjs';

const [binary, which, outArg] = process.argv.slice(2);
if (!binary || !['chromium', 'firefox'].includes(which)) {
  console.error('usage: node server/web/e2e/browsers.mjs <softphone binary> chromium|firefox [screenshot folder]');
  process.exit(2);
}
const mode = process.env.NETNS_MODE ?? 'lo';
const label = `${which}/${mode}`;
const out = resolve(outArg ?? 'test-artifacts');
const work = mkdtempSync(join(tmpdir(), 'e2e-browsers-'));
const home = join(work, 'home');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const near = (hz, want, tol = 15) => Math.abs(hz - want) <= tol;
const SILENT = 0.01, LOUD = 0.05, MIC = 0.01;
const ACCOUNT = '0b6f3c8e-5d21-4a7e-9f10-6c2d8e4b7a35';

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log(`ok   ${label}: ${name}`); } else { failed++; console.log(`FAIL ${label}: ${name}${detail ? ': ' + detail : ''}`); }
}
const show = (o) => JSON.stringify(o);

// The phone's "browser": $BROWSER is a script that notes each address the
// phone opens, one a line (the suite then loads it, as a browser would).
const opened = join(work, 'opened.txt');
const opener = join(work, 'browser.sh');
writeFileSync(opener, `#!/bin/sh\necho "$1" >> ${opened}\n`);
chmodSync(opener, 0o755);
const openedURLs = () => (existsSync(opened) ? readFileSync(opened, 'utf8').split('\n').filter(Boolean) : []);

const mic = join(work, 'mic440.wav');
sine(mic, 440, 48000, 300);
const peers = [];
let kam, app, browser, api, page, origin;

// hears measures for ~0.8 s what the page plays (audio.out: the remote
// stream's source on WebRTC, the worklet on the fallback).
async function hears(page) {
  const r = await page.eval(async () => {
    const a = window.softphone.audio;
    if (!a.out || !a.ctx) return null;
    const an = a.ctx.createAnalyser();
    an.fftSize = 16384;
    a.out.connect(an);
    await new Promise((res) => setTimeout(res, 800));
    const buf = new Float32Array(an.fftSize);
    an.getFloatTimeDomainData(buf);
    a.out.disconnect(an);
    return { rate: a.ctx.sampleRate, x: Array.from(buf) };
  });
  if (!r) return { hz: 0, amp: 0, rms: 0, none: 'nothing played' };
  return tone(Float32Array.from(r.x), r.rate);
}

// pageHears listens to the page's output until it carries hz (at most ms):
// right after a call connects or a click resumes the sound, the first
// window may still be silent on a loaded machine. The last reading is given
// when the tone never came.
async function pageHears(page, hz, ms = 8000) {
  let h;
  for (const end = Date.now() + ms; ;) {
    h = await hears(page);
    if (near(h.hz, hz) && h.amp > LOUD) return h;
    if (Date.now() > end) return { ...h, diag: await audioDiag(page) };
  }
}

// audioDiag says, when the page's ear heard nothing, whether audio reached
// the browser (WebRTC's inbound counters) and what the page did with it.
async function audioDiag(page) {
  return page.eval(async () => {
    const a = window.softphone.audio;
    const h = document.querySelector('#audio-holder')?.dataset ?? {};
    const d = { holder: h.holder === window.softphone.tab ? 'this tab' : h.holder || 'none', live: h.live, path: a.path, state: a.state, held: a.held, ctx: a.ctx?.state, paused: a.speaker.paused, tracks: a.speaker.srcObject?.getAudioTracks().map((t) => `${t.readyState}${t.muted ? '/muted' : ''}`) };
    if (a.pc) {
      for (const r of (await a.pc.getStats()).values()) {
        if (r.type === 'inbound-rtp') d.inbound = { packets: r.packetsReceived, lost: r.packetsLost, level: r.audioLevel, energy: r.totalAudioEnergy, samples: r.totalSamplesReceived };
      }
      d.ice = a.pc.iceConnectionState;
    }
    return d;
  }).catch((e) => String(e));
}

// hearsFrom waits until peer has heard, since mark m, at least secs of
// audio whose strongest tone is hz (at most ms), and gives what it heard
// (the last reading when that never came: the check then says what).
async function hearsFrom(peer, m, hz, secs = 0.8, ms = 8000) {
  let h;
  for (const end = Date.now() + ms; ;) {
    h = peer.heard(m);
    if ((h.secs >= secs && near(h.hz, hz) && h.amp > MIC) || Date.now() > end) return h;
    await sleep(100);
  }
}

async function apiJSON(method, path, body) {
  const res = await fetch(api + path, { method, headers: { 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function waitCalls(page, fn, what, ms = 20000, arg = null) {
  return page.until(what, fn, arg, ms);
}

try {
  kam = await kamailio();
  const registrar = `127.0.0.1:${kam.port}`;
  const bob = await baresip({ user: 'bob', pass: 'bobpw', registrar, hz: 1000 });
  const carol = await baresip({ user: 'carol', pass: 'carolpw', registrar, hz: 1000 });
  peers.push(bob, carol);
  const cap = capture(work, bob.rtp); // tshark starts slowly: it loads while the rest gets ready
  cap.catch(() => {}); // awaited below

  const apiPort = await freePort();
  api = `http://127.0.0.1:${apiPort}`;
  execFileSync('mkdir', ['-p', home]);
  writeFileSync(join(home, 'settings.json'), JSON.stringify({
    api: { enabled: true, port: apiPort },
    sip: { listen: '127.0.0.1:' + (await freePort()) },
    startup: { open_page: false },
    accounts: [{ id: ACCOUNT, name: 'Alice', username: 'alice', domain: '127.0.0.1', port: kam.port, transport: 'udp', expiry_s: 300, enabled: true }],
  }));
  const env = { ...process.env, HOME: home, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' };
  execFileSync(resolve(binary), ['--home', home, 'secret', 'set', 'account:' + ACCOUNT], { input: 'alicepw', env });
  app = startPhone(binary, home, { browser: true, env: { ...env, DISPLAY: ':99', BROWSER: opener } });
  const url0 = await app.url;
  origin = new URL(url0).origin;
  const launching = launch(which, origin, mic);
  launching.catch(() => {}); // awaited below
  for (let end = Date.now() + 20000; ; await sleep(200)) {
    const acc = await apiJSON('GET', '/accounts').catch(() => null);
    if (acc?.body?.[0]?.state === 'registered') break;
    if (Date.now() > end) throw new Error('alice did not register: ' + show(acc));
  }

  // 1. The first paint with no tab open says so (the HTML as served).
  {
    const login = await fetch(url0, { redirect: 'manual' });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const html = await (await fetch(origin + '/', { headers: { Cookie: cookie } })).text();
    const m = html.match(/<span id="audio-text"[^>]*>([^<]*)</);
    check('first paint with no tab: "No tab is open for the audio"', m?.[1]?.startsWith('No tab is open for the audio'), m?.[1]);
  }

  // 2. POST /calls with no tab: the page is opened, 5 s, 409, nothing dialled.
  {
    const t0 = Date.now();
    const r = await apiJSON('POST', '/calls', { number: 'bob' });
    const took = Date.now() - t0;
    check('POST /calls without a tab: 409 with the message', r.status === 409 && r.body?.error === 'no browser tab holds the audio: open the phone page', show(r));
    check('POST /calls without a tab: waited about 5 s', took >= 4900 && took < 8000, took + ' ms');
    check('POST /calls without a tab: the phone opened its page', openedURLs().length === 1 && /\/\?key=/.test(openedURLs()[0]), show(openedURLs()));
    const calls = await apiJSON('GET', '/calls');
    check('POST /calls without a tab: nothing dialled', calls.body?.length === 0 && !bob.log().includes('Incoming call'), show(calls.body));
  }
  browser = await launching;

  // 3. A page whose microphone is blocked says so, and how to allow it in
  // this browser; dialling there is held back with "Call anyway".
  {
    const blockedURL = openedURLs()[0].replace('127.0.0.1', 'localhost');
    const bp = await browser.blockedPage(new URL(blockedURL).origin);
    await bp.goto(blockedURL);
    const words = await bp.until('the blocked words', () => {
      const t = document.querySelector('#audio-text')?.textContent ?? '';
      return t.startsWith('Microphone blocked') ? t : '';
    }, null, 10000).catch(async (e) => String(e) + ': ' + await bp.text('#audio-text') + ' state=' + await bp.eval(() => window.softphone?.audio?.state + ' ' + location.href));
    const how = which === 'firefox' ? 'crossed-out microphone' : 'Site settings';
    check('blocked microphone: the header says so and how to allow it here', words.startsWith('Microphone blocked') && words.includes(how), words);
    await bp.fill('#number', 'bob');
    await bp.click('#dial-form button[type=submit]');
    const flash = await bp.until('the dial guard', () => document.querySelector('#dial-anyway') ? document.querySelector('#flash').textContent : '', null, 5000)
      .catch(async (e) => String(e) + ': flash=' + await bp.text('#flash') + ' state=' + await bp.eval(() => window.softphone?.audio?.state) + ' header=' + await bp.text('#audio-text'));
    check('blocked microphone: dialling says why and offers "Call anyway"', flash.includes('This call would have no audio here.') && flash.includes('Call anyway'), flash);
    check('blocked microphone: nothing dialled', (await apiJSON('GET', '/calls')).body?.length === 0);
    await bp.close();
  }

  // 4. The call again: the page the phone opens is loaded (as by the
  // desktop's browser) and takes the audio within the 5 s.
  page = await browser.page();
  let r;
  {
    const before = openedURLs().length;
    const posting = apiJSON('POST', '/calls', { number: 'bob' });
    for (let end = Date.now() + 3000; openedURLs().length === before && Date.now() < end;) await sleep(50);
    const u = openedURLs()[before];
    if (u) await page.goto(u);
    r = await posting;
    check('POST /calls: the opened page takes the audio in time, 201', r.status === 201 && !!u, show(r));
  }
  await waitCalls(page, () => !!document.querySelector('#calls [data-state="active"]'), 'the call to bob to be active');
  const path = await page.until('the audio to be live', () => window.softphone.audio.state === 'live' && window.softphone.audio.path, null, 15000);
  check(`the audio goes over ${mode === 'lo' ? 'the fallback (pcm)' : 'WebRTC'}`, path === (mode === 'lo' ? 'pcm' : 'webrtc'), path);
  await page.until('the header to say live', () => document.querySelector('#audio-holder')?.dataset.live === 'true', null, 10000);
  // The page was never clicked (the suite's evaluations carry no user
  // gesture). Both browsers let a page that captures the microphone play:
  // Chromium's default autoplay policy once the context is resumed after
  // the capture started, Firefox anyway. So no "Click to hear the call".
  {
    const held = await page.until('the page to play', () => {
      const a = window.softphone.audio;
      const b = document.querySelector('#audio-play');
      const shown = !!b && getComputedStyle(b).display !== 'none';
      return a.ctx?.state === 'running' && !a.held && !shown ? 'plays' : '';
    }, null, 5000).catch(async (e) => String(e) + ' ' + show(await page.eval(() => ({ held: window.softphone.audio.held, ctx: window.softphone.audio.ctx?.state, active: navigator.userActivation?.hasBeenActive }))));
    check('a page never clicked plays the call: no autoplay prompt', held === 'plays', held);
  }
  {
    const m = bob.mark();
    const tab = await pageHears(page, 1000);
    const far = await hearsFrom(bob, m, 440);
    check("bob hears the page's 440 Hz", near(far.hz, 440) && far.amp > MIC, show(far));
    check("the page hears bob's 1000 Hz", near(tab.hz, 1000) && tab.amp > LOUD, show(tab));
    const text = await page.text('#audio-text');
    check('the header says this tab holds the audio', text === 'Audio: this tab (connected)', text);
    const offer = await page.eval(() => getComputedStyle(document.querySelector('#take-audio-top')).display);
    check('the header offers no "Use this tab" to the tab that holds the audio', offer === 'none', offer);
  }
  await page.shot(join(out, `browsers-${which}-${mode}-call.png`));
  // Mute works in that page too (the microphone goes through its gain once
  // the context runs; WebRTC was given the raw track while it did not).
  {
    await page.click('#calls [data-action="mute"]');
    await page.until('mute pressed', () => !!document.querySelector('#calls [data-action="mute"][aria-pressed="true"]'), null, 5000);
    let far;
    for (const end = Date.now() + 8000; ;) {
      far = await hearsFrom(bob, bob.mark(), 440, 0.6, 1500);
      if ((far.secs > 0.5 && far.rms < SILENT) || Date.now() > end) break;
    }
    check('mute: bob hears silence', far.secs > 0.5 && far.rms < SILENT, show(far));
    await page.click('#calls [data-action="mute"]');
    await page.until('mute released', () => !!document.querySelector('#calls [data-action="mute"][aria-pressed="false"]'), null, 5000);
    far = await hearsFrom(bob, bob.mark(), 440);
    check("unmute: bob hears the page's 440 Hz again", near(far.hz, 440) && far.amp > MIC, show(far));
  }

  // 5. A second call from the page holds the first; the held party hears
  // nothing of it; the microphone goes to the second.
  {
    const c1 = r.body.id;
    await page.fill('#number', 'carol');
    await page.click('#dial-form button[type=submit]');
    await waitCalls(page, (id) => !!document.querySelector(`#calls [data-call-id="${id}"][data-state="hold"]`) && !!document.querySelector('#calls [data-number="carol"][data-state="active"]'), 'bob held and carol active', 20000, c1)
      .catch((e) => check('second call: bob held, carol active', false, String(e)));
    // From the moment carol hears the page's tone, a second and more of
    // what goes to the held bob.
    const atCarol = await hearsFrom(carol, carol.mark(), 440, 0.3);
    const t0 = Date.now();
    await hearsFrom(carol, carol.mark(), 440, 1.2);
    const t1 = Date.now();
    check("second call: carol hears the page's 440 Hz", near(atCarol.hz, 440) && atCarol.amp > MIC, show(atCarol));
    const calls = (await apiJSON('GET', '/calls')).body ?? [];
    check('second call: the first is on hold', calls.find((c) => c.id === c1)?.state === 'hold', show(calls.map((c) => [c.number, c.state])));
    const rtp = await (await cap).stop();
    const held = tone(rtp.audio(t0, t1), 8000);
    check('second call: what is sent to the held bob is silence', held.secs > 0.5 && held.rms < SILENT, show({ held, captured: rtp.about(t0, t1) }));
  }

  // 6. After the last call: the microphone closed, no connection left.
  {
    await apiJSON('GET', '/calls').then(async (c) => { for (const x of c.body ?? []) await apiJSON('POST', `/calls/${x.id}/hangup`, {}); });
    await waitCalls(page, () => !!document.querySelector('#calls [data-calls="0"]'), 'no call left');
    const idle = await page.until('the microphone to close', () => {
      const a = window.softphone.audio;
      return a.mic === null && a.pc === null && a.path === '' && a.state === 'ready' ? 'closed' : '';
    }, null, 5000).catch((e) => String(e));
    check('after the last call the microphone is closed and the audio disconnected', idle === 'closed', idle);
    const meters = await page.eval(() => [document.querySelector('#level-mic')?.value, document.querySelector('#level-speaker')?.value]);
    check('no call: the level meters rest', meters.every((v) => v === 0 || v === undefined), show(meters));
  }

  // 7. Click on Call to live microphone, from a page with no call (the
  // microphone closed): a figure, not a check.
  {
    await page.fill('#number', 'bob');
    await page.click('#dial-form button[type=submit]');
    const fig = await page.until('a live microphone', () => {
      const a = window.softphone.audio;
      return a.micAt > a.clickAt && a.clickAt > 0 ? { click: a.clickAt, mic: a.micAt } : null;
    }, null, 10000);
    console.log(`figure ${label}: click on Call to live microphone ${(fig.mic - fig.click).toFixed(0)} ms`);
    await waitCalls(page, () => !!document.querySelector('#calls [data-state="active"]'), 'the third call');
    for (const x of (await apiJSON('GET', '/calls')).body ?? []) await apiJSON('POST', `/calls/${x.id}/hangup`, {});
    await waitCalls(page, () => !!document.querySelector('#calls [data-calls="0"]'), 'no call left');
  }

  // 7b. A call that ends while the page opens its audio leaves nothing
  // behind. (1) Ended while the browser opens the microphone: the page
  // closed its start at once, but the microphone it got stayed open (the
  // browser's recording sign) until the next call. (2) Ended while the
  // browser gathers ICE candidates: stop() closes the connection, gathering
  // never completes, and the page offered anyway 3 s later; the bridge
  // gives the audio to the tab that offers, and took it from the page that
  // held it by then (section 8 heard 8 s of silence once in CI: this page's
  // late offer, seen 3 s after the hang-up, overlaps the strict page's
  // call). Each hang-up is made to fall in its window.
  {
    const r = await page.eval(async () => {
      const a = window.softphone.audio, md = navigator.mediaDevices;
      const P = RTCPeerConnection.prototype, set = P.setLocalDescription, f = window.fetch, gum = md.getUserMedia, need = a.need;
      const streams = [];
      let offers = 0;
      md.getUserMedia = async (c) => { const s = await gum.call(md, c); streams.push(s); return s; };
      window.fetch = (u, o) => { if (String(u).includes('/webrtc/offer')) offers++; return f(u, o); };
      const left = () => streams.flatMap((s) => s.getTracks()).filter((t) => t.readyState === 'live').length;
      const out = {};
      try {
        // (1) No call: the page's own refresh stops the start as it begins.
        await a.start();
        out.micOpenOpening = left();
        // (2) Stopped as soon as the offer is set (a.need is held off, or
        // the page's refresh would stop this start first, as in (1)).
        a.need = () => undefined;
        P.setLocalDescription = async function (...x) { const v = await set.apply(this, x); a.stop(); return v; };
        await a.start();
        out.offers = offers;
        out.micOpenGathering = left();
      } finally { P.setLocalDescription = set; window.fetch = f; md.getUserMedia = gum; a.need = need; }
      out.streams = streams.length;
      out.state = a.state;
      return out;
    });
    check('a call ended while the page opens the microphone: the microphone is closed', r.streams === 2 && r.micOpenOpening === 0, show(r));
    check('a call ended while the page gathers: no offer, the microphone is closed', r.offers === 0 && r.micOpenGathering === 0 && r.state === 'ready', show(r));
  }

  // 7c. A page reloaded during a call keeps its tab id; the old page's close
  // beacon may arrive after the new page connected, and it names the old
  // page's connection (conn), so it leaves the new page's audio alone (it
  // closed it when the beacon named the tab only). The late beacon is sent
  // from the new page with the old page's words; the handler closes at
  // once, so its answer means the phone has acted. WebRTC only (LAN).
  if (mode === 'lan') {
    const c = await apiJSON('POST', '/calls', { number: 'bob' });
    const live = () => window.softphone.audio.state === 'live' && window.softphone.audio.path === 'webrtc' && window.softphone.audio.conn;
    const oldConn = await page.until('the call live over WebRTC', live, null, 15000).catch((e) => String(e));
    await page.raw.reload();
    const newConn = await page.until('the reloaded page live over WebRTC', live, null, 15000).catch((e) => String(e));
    const late = await page.eval(async (conn) => {
      const a = window.softphone.audio, pc = a.pc;
      let changes = 0;
      pc.addEventListener('connectionstatechange', () => changes++);
      const csrf = document.querySelector('meta[name="csrf-token"]').content;
      const res = await fetch('/webrtc/close', { method: 'POST', body: new URLSearchParams({ tab: window.softphone.tab, conn, csrf }) });
      // Had the phone closed this connection, it would show by the end of the hearing below.
      window.__lateBeacon = () => ({ status: res.status, same: a.pc === pc, changes, state: pc.connectionState });
      return res.status;
    }, oldConn);
    const tab = await pageHears(page, 1000);
    const after = await page.eval(() => window.__lateBeacon());
    check("reload during a call: the old page's late close beacon leaves the new page's audio (it hears bob's 1000 Hz, its connection untouched)",
      c.status === 201 && oldConn !== newConn && late < 300 && near(tab.hz, 1000) && tab.amp > LOUD && after.same && after.changes === 0 && after.state === 'connected',
      show({ call: c.status, oldConn, newConn, late, tab, after }));
    for (const x of (await apiJSON('GET', '/calls')).body ?? []) await apiJSON('POST', `/calls/${x.id}/hangup`, {});
    await waitCalls(page, () => !!document.querySelector('#calls [data-calls="0"]'), 'no call left');
    await page.until('the microphone to close', () => window.softphone.audio.mic === null && window.softphone.audio.pc === null, null, 5000).catch(() => {});
  }

  // 8. Chromium with a stricter autoplay policy (user-gesture-required)
  // refuses to play the call's remote stream in a page never clicked: the
  // header says "Click to hear the call", and one click plays it. (Its
  // AudioContext runs: on the fallback the page plays without a prompt.)
  if (which === 'chromium') {
    const sp = await browser.strictPage();
    await sp.goto(origin + '/');
    await sp.until('the strict page to hold the audio', () => document.querySelector('#audio-holder')?.dataset.holder === window.softphone?.tab && window.softphone.audio.state === 'ready', null, 15000);
    const c = await apiJSON('POST', '/calls', { number: 'bob' });
    check('stricter autoplay: the call is placed, 201', c.status === 201, show(c));
    await sp.until('the audio to be live', () => window.softphone.audio.state === 'live' && document.querySelector('#audio-holder')?.dataset.live === 'true', null, 15000);
    const shown = () => { const b = document.querySelector('#audio-play'); return b && getComputedStyle(b).display !== 'none' ? b.textContent : ''; };
    if (mode === 'lan') {
      const words = await sp.until('the autoplay prompt', shown, null, 5000).catch((e) => String(e));
      check('stricter autoplay: the header says "Click to hear the call"', words === 'Click to hear the call', words);
      await sp.shot(join(out, `browsers-${which}-${mode}-autoplay.png`));
      await sp.click('#audio-play');
      const plays = await sp.until('the call to play', () => !window.softphone.audio.held && !window.softphone.audio.speaker.paused ? 'plays' : '', null, 5000).catch((e) => String(e));
      check('stricter autoplay: one click plays the call and the prompt goes', plays === 'plays' && !(await sp.eval(shown)), plays);
    } else {
      const st = await sp.eval(() => ({ held: window.softphone.audio.held, ctx: window.softphone.audio.ctx?.state }));
      check('stricter autoplay, fallback: the context runs, no prompt', !st.held && st.ctx === 'running' && !(await sp.eval(shown)), show(st));
    }
    const tab = await pageHears(sp, 1000);
    check("stricter autoplay: the page hears bob's 1000 Hz", near(tab.hz, 1000) && tab.amp > LOUD, show(tab));
    for (const x of (await apiJSON('GET', '/calls')).body ?? []) await apiJSON('POST', `/calls/${x.id}/hangup`, {});
    await sp.close();
  }
} catch (e) {
  const st = await page?.eval(() => ({ url: location.href, calls: document.querySelector('#calls')?.innerHTML.slice(0, 600), audio: document.querySelector('#audio-text')?.textContent, state: window.softphone?.audio?.state })).catch((x) => String(x));
  check('the suite ran to its end', false, String(e?.stack ?? e) + '\npage: ' + show(st) + '\nphone log:\n' + (app?.log().slice(-3000) ?? ''));
} finally {
  await browser?.close();
  if (app) await stopPhone(app.proc);
  for (const p of peers) p.stop();
  kam?.stop();
  if (!process.env.KEEP) rmSync(work, { recursive: true, force: true });
}
console.log(`${label}: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
