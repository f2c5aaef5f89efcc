// Issue 12 items 4, 7 and 8 against the real binary in headless Chromium
// (Debian's /usr/bin/chromium, playwright-core), with kamailio and baresip
// ("bob") as real SIP peers:
//
//   node server/web/e2e/origins.mjs <softphone binary> [screenshot folder]
//
// 1. Web pages need the person's yes: pages of two foreign origins fetch the
//    API's /history. The phone page asks about each (the words of the issue);
//    Allow lets the waiting request through and later ones at once; Remove on
//    the Integration tab revokes it (the next fetch is a question again);
//    Deny gives 403 `origin not allowed: approve it on the phone page`; the
//    other origin, never answered, gets the same 403 after the 30 s wait; a
//    third origin's knock is a CORS preflight, held until Allow as well.
// 2. Links fill in, people dial: /dial?uri=... (address bar, or a link on a
//    foreign page) fills in the number and focuses Call; bob hears of no
//    call until the Call button is clicked. `softphone dial URI` dials at
//    once with the home's key file, and does nothing without it.
// 3. Half-open connections: 500 silent or half-sent TCP connections to each
//    of the API and page ports; the API still answers meanwhile, and the
//    phone releases all of them within 60 s (product defaults). The phone's
//    file descriptors and memory before, during and after are printed.
// Run inside `unshare -n`. Prints "N passed, N failed"; non-zero on a failure.
import { chromium } from 'playwright-core';
import { startPhone, stopPhone, kamailio, freePort } from './peers.mjs';
import { baresip } from './tones.mjs';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync, renameSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [binary, outArg] = process.argv.slice(2);
if (!binary) {
  console.error('usage: node server/web/e2e/origins.mjs <softphone binary> [screenshot folder]');
  process.exit(2);
}
const out = resolve(outArg ?? 'test-artifacts');
mkdirSync(out, { recursive: true });
// No Secret Service: the phone keeps the SIP password in its home's secrets.json.
process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/softphone-e2e';

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log('ok   ' + name); } else { failed++; console.log('FAIL ' + name + (detail ? ': ' + detail : '')); }
}
const MSG = 'origin not allowed: approve it on the phone page';
const ASK = ' wants to use this phone: place and control calls, read calls, history and contacts.';

// measure reads the phone process's open descriptors and resident memory.
function measure(pid) {
  const fds = readdirSync(`/proc/${pid}/fd`).length;
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  return { fds, rssMiB: +(rss / 1024).toFixed(1) };
}

async function apiGet(base, path) {
  const r = await fetch(base + path);
  return { status: r.status, body: await r.json() };
}

// A foreign page: reads the API's /history on request, and has a tel link.
function foreignPage(api, ui) {
  return `<!DOCTYPE html><html><body><a id="dial" href="${ui}/dial?uri=tel:%2B4930999">call +49 30 999</a>
<script>
window.readHistory = async (preflight) => {
  const t0 = Date.now();
  try {
    // A header that is not CORS-safelisted makes the browser send a preflight first.
    // no-store: two pages of one site (localhost) share Chromium's HTTP cache, whose
    // lock holds a second GET of the same URL until the first ends (the first
    // waits for the person's answer), so the second question would never come.
    const init = { cache: 'no-store' };
    if (preflight) init.headers = { 'Last-Event-ID': '1' };
    const r = await fetch('${api}/history', init);
    return { status: r.status, body: await r.text(), ms: Date.now() - t0 };
  } catch (e) { return { status: 0, body: String(e), ms: Date.now() - t0 }; }
};
</script></body></html>`;
}

async function serve(html) {
  const port = await freePort();
  const srv = createServer((req, res) => { res.setHeader('Content-Type', 'text/html'); res.end(html()); });
  await new Promise((r) => srv.listen(port, '127.0.0.1', r));
  return { origin: `http://localhost:${port}`, close: () => srv.close() };
}

const home = mkdtempSync(join(tmpdir(), 'softphone-e2e-origins-'));
const kam = await kamailio();
let bob, app, browser;
const pages = [];
try {
  bob = await baresip({ user: 'bob', pass: 'bobpw', registrar: `127.0.0.1:${kam.port}`, hz: 440 });
  const incoming = () => (bob.log().match(/call: answering call on line/g) ?? []).length; // bob answers every call at once
  const apiPort = await freePort(), uiPort = await freePort(), sipPort = await freePort();
  const api = `http://127.0.0.1:${apiPort}`;
  const accountID = '5b0c2f4e-6d1a-4b3c-8e9f-0a1b2c3d4e5f';
  writeFileSync(join(home, 'settings.json'), JSON.stringify({
    ui: { port: uiPort }, api: { enabled: true, port: apiPort }, sip: { listen: `127.0.0.1:${sipPort}` },
    startup: { open_page: false },
    accounts: [{ id: accountID, name: 'Alice', username: 'alice', domain: '127.0.0.1', port: kam.port, transport: 'udp',
      outbound_proxy: `127.0.0.1:${kam.port}`, expiry_s: 300, enabled: true }],
  }));
  const sec = spawnSync(resolve(binary), ['--home', home, 'secret', 'set', 'account:' + accountID], { input: 'alicepw', encoding: 'utf8' });
  if (sec.status !== 0) throw new Error('secret set: ' + sec.stderr);

  app = startPhone(binary, home);
  const url = await app.url;
  const ui = new URL(url).origin;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--allow-loopback-in-peer-connection',
      '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'],
  });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await ctx.grantPermissions(['microphone'], { origin: ui });
  const phone = await ctx.newPage();
  await phone.goto(url);
  await phone.waitForSelector('#accounts [data-state="registered"]', { timeout: 20000 }).catch(() => {});
  check('phone registered at kamailio', await phone.isVisible('#accounts [data-state="registered"]'));

  // 1. Foreign origins need the person's yes.
  const pageA = await serve(() => foreignPage(api, ui)), pageB = await serve(() => foreignPage(api, ui));
  const pageC = await serve(() => foreignPage(api, ui));
  pages.push(pageA, pageB, pageC);
  const crm = await browser.newContext();
  const a = await crm.newPage(), b = await crm.newPage();
  await a.goto(pageA.origin + '/');
  await b.goto(pageB.origin + '/');
  const askOf = (o) => `#origin-asks [data-origin="${o}"]`;
  const readA = a.evaluate(() => window.readHistory());
  await phone.waitForSelector(askOf(pageA.origin), { timeout: 10000 }).catch(() => {});
  const askText = (await phone.textContent(askOf(pageA.origin)).catch(() => '')) ?? '';
  check('the phone page asks about the foreign origin', askText.includes(pageA.origin + ASK), askText);
  check('the question offers Allow and Deny', (await phone.isVisible(askOf(pageA.origin) + ' button[data-answer=allow]')) &&
    (await phone.isVisible(askOf(pageA.origin) + ' button[data-answer=deny]')));
  // A second origin asks while A's question waits: both are shown.
  const readB = b.evaluate(() => window.readHistory()); // never answered: the 30 s wait runs meanwhile
  await phone.waitForSelector(askOf(pageB.origin), { timeout: 10000 }).catch(() => {});
  check('the second origin is asked about too', await phone.isVisible(askOf(pageB.origin)), await phone.innerHTML('#origin-asks').catch((e) => String(e)));
  await phone.screenshot({ path: join(out, 'origins-01-asked.png'), fullPage: true });
  await phone.click(askOf(pageA.origin) + ' button[data-answer=allow]');
  const r1 = await readA;
  let list = null;
  try { list = JSON.parse(r1.body); } catch { /* checked below */ }
  check('after Allow the page reads /history', r1.status === 200 && Array.isArray(list), `${r1.status} ${r1.body.slice(0, 200)}`);
  await phone.waitForSelector(askOf(pageA.origin), { state: 'detached', timeout: 10000 }).catch(() => {});
  check('the answered question leaves the page', !(await phone.isVisible(askOf(pageA.origin))));
  const r2 = await a.evaluate(() => window.readHistory());
  check('an approved origin reads again without a question', r2.status === 200 && !(await phone.isVisible(askOf(pageA.origin))), String(r2.status));
  const kept = JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')).api.allowed_origins;
  check('the approved origin is kept in api.allowed_origins', Array.isArray(kept) && kept.includes(pageA.origin), JSON.stringify(kept));

  // The knock may be a preflight: it waits for the answer the same way.
  const c = await crm.newPage();
  await c.goto(pageC.origin + '/');
  const readC = c.evaluate(() => window.readHistory(true));
  await phone.waitForSelector(askOf(pageC.origin), { timeout: 10000 }).catch(() => {});
  check('a preflight knock is asked about', await phone.isVisible(askOf(pageC.origin)));
  await phone.click(askOf(pageC.origin) + ' button[data-answer=allow]');
  const rC = await readC;
  check('after Allow the preflighted request reads /history', rC.status === 200 && rC.body.startsWith('['), `${rC.status} ${rC.body.slice(0, 200)}`);

  // Remove on the Integration tab revokes it; then Deny gives the 403.
  await phone.goto(ui + '/settings');
  const row = `#sec-origins li[data-origin="${pageA.origin}"]`;
  check('the Integration tab lists the approved origin', await phone.isVisible(row));
  await phone.screenshot({ path: join(out, 'origins-02-listed.png'), fullPage: true });
  await phone.click(row + ' button');
  await phone.waitForSelector(row, { state: 'detached', timeout: 10000 }).catch(() => {});
  check('Remove takes it off the list', !(await phone.isVisible(row)));
  const readA3 = a.evaluate(() => window.readHistory());
  await phone.waitForSelector(askOf(pageA.origin), { timeout: 10000 }).catch(() => {});
  check('a removed origin is asked about again', await phone.isVisible(askOf(pageA.origin)));
  await phone.click(askOf(pageA.origin) + ' button[data-answer=deny]');
  const r3 = await readA3;
  check('Deny: 403 with the message', r3.status === 403 && r3.body.includes(MSG), `${r3.status} ${r3.body}`);
  await phone.waitForSelector(askOf(pageA.origin), { state: 'detached', timeout: 10000 }).catch(() => {});
  // A new question would hold the request for up to 30 s.
  const r4 = await a.evaluate(() => window.readHistory());
  check('a denied origin is refused at once, without a new question', r4.status === 403 && r4.ms < 5000, `${r4.status} ${r4.ms} ms`);
  const rB = await readB;
  check('no answer within 30 s: 403 with the message', rB.status === 403 && rB.body.includes(MSG) && rB.ms >= 29000, `${rB.status} after ${rB.ms} ms: ${rB.body}`);

  // 2. Links fill in; people dial.
  const target = `sip:bob@127.0.0.1:${kam.port}`;
  const before = incoming();
  await phone.goto(`${ui}/dial?uri=${encodeURIComponent(target)}`);
  check('/dial fills in the number', (await phone.inputValue('#number')) === target, await phone.inputValue('#number'));
  check('/dial puts the focus on Call', await phone.evaluate(() => document.activeElement?.matches('#dial-form button[data-action=dial]') === true));
  check('/dial says the number came from a link', await phone.isVisible('#number-filled'));
  await phone.screenshot({ path: join(out, 'origins-03-dial-filled.png'), fullPage: true });
  const link = await ctx.newPage(); // a foreign page's link, in the browser that holds the phone's session
  await link.goto(pageA.origin + '/');
  await Promise.all([link.waitForLoadState('load'), link.click('#dial')]);
  await link.waitForURL(/\/dial\?uri=/, { timeout: 10000 }).catch(() => {});
  await link.close();
  const calls0 = await apiGet(api, '/calls');
  check('nothing dialled by the links (no call, no INVITE at bob)', calls0.status === 200 && calls0.body.length === 0 && incoming() === before,
    `calls ${JSON.stringify(calls0.body)}, bob's incoming ${incoming() - before}`);
  await phone.click('#dial-form button[data-action=dial]');
  await phone.waitForSelector('#calls [data-state="active"]', { timeout: 20000 }).catch(() => {});
  check('a click on Call dials: bob answers', await phone.isVisible('#calls [data-state="active"]') && incoming() === before + 1,
    `bob's incoming ${incoming() - before}`);
  await phone.click('#calls [data-action="hangup"]');
  await phone.waitForSelector('#calls [data-calls="0"]', { timeout: 10000 }).catch(() => {});

  // `softphone dial` with and without the key file.
  const keyFile = join(home, 'dial-key');
  renameSync(keyFile, keyFile + '.away');
  const noKey = spawnSync(resolve(binary), ['--home', home, 'dial', target], { encoding: 'utf8', env: { ...process.env, HOME: home } });
  const calls1 = await apiGet(api, '/calls');
  check('softphone dial without the key file refuses and dials nothing',
    noKey.status !== 0 && calls1.body.length === 0 && incoming() === before + 1, `exit ${noKey.status} ${noKey.stderr}`);
  renameSync(keyFile + '.away', keyFile);
  const withKey = spawnSync(resolve(binary), ['--home', home, 'dial', target], { encoding: 'utf8', env: { ...process.env, HOME: home } });
  check('softphone dial with the key file dials at once', withKey.status === 0 && /calling .* \(call [0-9a-f-]{36}\)/.test(withKey.stdout),
    `exit ${withKey.status} ${withKey.stdout} ${withKey.stderr}`);
  await phone.goto(ui + '/');
  await phone.waitForSelector('#calls [data-state="active"]', { timeout: 20000 }).catch(() => {});
  check('bob answers the call of softphone dial', await phone.isVisible('#calls [data-state="active"]') && incoming() === before + 2);
  await phone.click('#calls [data-action="hangup"]').catch(() => {});
  await phone.waitForSelector('#calls [data-calls="0"]', { timeout: 10000 }).catch(() => {});

  // 3. Half-open connections to both ports, product defaults.
  const pid = app.proc.pid;
  const base = measure(pid);
  const N = 500;
  const socks = [];
  let closed = 0;
  const t0 = Date.now();
  for (const port of [apiPort, uiPort]) {
    for (let i = 0; i < N; i++) {
      const s = connect(port, '127.0.0.1');
      s.on('error', () => {});
      s.on('connect', () => { if (i % 2) s.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '); });
      s.on('data', () => {});
      s.on('close', () => { closed++; });
      socks.push(s);
    }
  }
  const deadline = Date.now() + 10000;
  while (measure(pid).fds < base.fds + 2 * N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const peak = measure(pid);
  const during = await apiGet(api, '/accounts').catch((e) => ({ status: 0, body: String(e) }));
  check('the API answers during the attack', during.status === 200, String(during.status));
  const end = Date.now() + 60000;
  while (closed < socks.length && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  const took = Date.now() - t0;
  check(`all ${socks.length} half-open connections released within 60 s`, closed === socks.length, `${closed} closed after ${took} ms`);
  const after = measure(pid);
  console.log(`measure: half-open attack ${2 * N} connections (${N} to the API, ${N} to the pages): ` +
    `fds ${base.fds} before, ${peak.fds} during, ${after.fds} after; RSS ${base.rssMiB} MiB before, ${peak.rssMiB} MiB during, ` +
    `${after.rssMiB} MiB after; all released after ${(took / 1000).toFixed(1)} s`);
  check('the descriptors are given back', after.fds <= base.fds + 10, `${after.fds} vs ${base.fds}`);
  socks.forEach((s) => s.destroy());
} catch (e) {
  check('origins walk', false, String(e?.stack ?? e) + (app ? '\nphone:\n' + app.log().slice(-2000) : ''));
} finally {
  await browser?.close().catch(() => {});
  if (app) {
    const code = await stopPhone(app.proc);
    check('the phone stops cleanly', code === 0, String(code) + '\n' + app.log().slice(-1500));
  }
  pages.forEach((p) => p.close());
  bob?.stop();
  kam.stop();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
