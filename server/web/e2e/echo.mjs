// Echo cancellation of the tab's audio, measured (issue 13: "keep echo
// cancellation working"), against the real binary, kamailio and baresip:
//
//   scripts/netns.sh lo|lan node server/web/e2e/echo.mjs <binary> chromium|firefox
//
// The browser runs on a private PulseAudio whose speaker (a null sink) is
// also its microphone (the sink's monitor, remapped as the default source):
// everything the page plays comes back into its microphone, as from a
// laptop's speakers. bob (baresip) plays pink noise (a canceller finds the
// echo's delay by correlation; a steady tone leaves it ambiguous); the page
// plays it, it comes back into the microphone, and whatever the page does
// not cancel is sent back to bob. Two calls: the first with
// echoCancellation off, the second as the phone opens the microphone (on).
// Noise suppression and gain control are off in both, so the difference is
// the canceller's alone. The level (RMS) of what bob gets back, after the
// canceller had ADAPT_S seconds, gives the attenuation in dB. Checks: the
// loop carries bob's sound back with the canceller off (else the figure
// means nothing), and the canceller takes at least MIN_DB off it (measured:
// 16 to 58 dB). On a LAN-like machine the audio goes over WebRTC, on a
// loopback-only one over the fallback WebSocket.
// Prints "ok"/"FAIL" lines, a "figure" line, "N passed, N failed".
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { kamailio, freePort, startPhone, stopPhone } from './peers.mjs';
import { baresip, readWAV, rms } from './tones.mjs';
import { launch } from './drivers.mjs';

const [binary, which] = process.argv.slice(2);
if (!binary || !['chromium', 'firefox'].includes(which)) {
  console.error('usage: node server/web/e2e/echo.mjs <softphone binary> chromium|firefox');
  process.exit(2);
}
const mode = process.env.NETNS_MODE ?? 'lo';
const label = `echo ${which}/${mode}`;
const work = mkdtempSync(join(tmpdir(), 'e2e-echo-'));
const home = join(work, 'home');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ACCOUNT = '0b6f3c8e-5d21-4a7e-9f10-6c2d8e4b7a35';
const MIN_DB = 6; // measured 9.3 (Firefox, WebRTC, loaded CI run) to 57.6 dB; off gives 0
const LOUD = 0.02; // the echo with the canceller off must at least be this loud (of full scale)
const ADAPT_S = Number(process.env.ECHO_ADAPT_S ?? 6); // seconds of the call before the stretch that is measured
const MEASURE_S = 2; // the stretch measured (what tone() reads: its last 16384 samples at 8 kHz)

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log(`ok   ${label}: ${name}`); } else { failed++; console.log(`FAIL ${label}: ${name}${detail ? ': ' + detail : ''}`); }
}
const show = (o) => JSON.stringify(o);
let kam, bob, app, browser;

async function apiJSON(api, method, path, body) {
  const res = await fetch(api + path, { method, headers: { 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: await res.json().catch(() => null) };
}

try {
  kam = await kamailio();
  const registrar = `127.0.0.1:${kam.port}`;
  // bob plays pink noise: a canceller finds the echo's delay by
  // correlation, which a steady tone (periodic) leaves ambiguous.
  const noise = join(work, 'noise.wav');
  execFileSync('sox', ['-n', '-r', '8000', '-c', '1', '-b', '16', noise, 'synth', '120', 'pinknoise', 'vol', '0.5']);
  bob = await baresip({ user: 'bob', pass: 'bobpw', registrar, source: noise });
  const apiPort = await freePort();
  const api = `http://127.0.0.1:${apiPort}`;
  execFileSync('mkdir', ['-p', home]);
  writeFileSync(join(home, 'settings.json'), JSON.stringify({
    api: { enabled: true, port: apiPort },
    sip: { listen: '127.0.0.1:' + (await freePort()) },
    startup: { open_page: false },
    accounts: [{ id: ACCOUNT, name: 'Alice', username: 'alice', domain: '127.0.0.1', port: kam.port, transport: 'udp', expiry_s: 300, enabled: true }],
  }));
  const env = { ...process.env, HOME: home, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' };
  execFileSync(resolve(binary), ['--home', home, 'secret', 'set', 'account:' + ACCOUNT], { input: 'alicepw', env });
  app = startPhone(binary, home, { env });
  const url = await app.url;
  browser = await launch(which, new URL(url).origin, null);
  const page = await browser.page();
  await page.goto(url);
  await page.until('the page to hold the audio', () => document.querySelector('#audio-holder')?.dataset.holder === window.softphone?.tab && window.softphone.audio.state === 'ready', null, 20000);
  for (let end = Date.now() + 20000; ; await sleep(200)) {
    const acc = await apiJSON(api, 'GET', '/accounts').catch(() => null);
    if (acc?.body?.[0]?.state === 'registered') break;
    if (Date.now() > end) throw new Error('alice did not register: ' + show(acc));
  }

  // echoAt calls bob with the microphone opened with these constraints and
  // gives the level (RMS) of what bob gets back once the canceller had
  // ADAPT_S: the microphone hears nothing but the page's own sound.
  const echoAt = async (constraints) => {
    await page.eval((c) => { window.softphone.audio.constraints = c; }, constraints);
    const r = await apiJSON(api, 'POST', '/calls', { number: 'bob' });
    if (r.status !== 201) throw new Error('POST /calls: ' + show(r));
    await page.until('the audio to be live', () => window.softphone.audio.state === 'live' && document.querySelector('#audio-holder')?.dataset.live === 'true', null, 20000);
    const path = await page.eval(() => window.softphone.audio.path);
    // bob's recording of this call: from when it holds ADAPT_S + MEASURE_S
    // seconds, its last MEASURE_S are the figure.
    const m = bob.mark();
    let h;
    for (const end = Date.now() + 30000; ; await sleep(200)) {
      h = bob.heard(m);
      if (h.secs >= ADAPT_S + MEASURE_S || Date.now() > end) break;
    }
    const f = bob.newest();
    const w = readWAV(f, m.f === f ? m.at : 0).ch[0];
    await apiJSON(api, 'POST', `/calls/${r.body.id}/hangup`, {});
    await page.until('the microphone to close', () => window.softphone.audio.mic === null && window.softphone.audio.path === '', null, 10000);
    return { level: +rms(w.subarray(Math.max(0, w.length - MEASURE_S * 8000))).toFixed(4), secs: h.secs, path };
  };
  const quiet = { noiseSuppression: false, autoGainControl: false };
  const off = await echoAt({ ...quiet, echoCancellation: false });
  const on = await echoAt(quiet);
  const db = 20 * Math.log10(Math.max(off.level, 1e-6) / Math.max(on.level, 1e-6));
  console.log(`figure ${label}: bob's noise back from the page (RMS): canceller off ${off.level.toFixed(4)}, on ${on.level.toFixed(4)} of full scale: ${db.toFixed(1)} dB less (path ${on.path})`);
  check('the loop carries the far end back with the canceller off', off.level > LOUD && off.secs >= ADAPT_S, show(off));
  check(`echo cancellation takes at least ${MIN_DB} dB off the echo`, db >= MIN_DB, `${db.toFixed(1)} dB: ${show({ off, on })}`);
} catch (e) {
  check('the suite ran to its end', false, String(e?.stack ?? e) + '\nphone log:\n' + (app?.log().slice(-2000) ?? ''));
} finally {
  await browser?.close();
  if (app) await stopPhone(app.proc);
  bob?.stop();
  kam?.stop();
  if (!process.env.KEEP) rmSync(work, { recursive: true, force: true });
}
console.log(`${label}: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
