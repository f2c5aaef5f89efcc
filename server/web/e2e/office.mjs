// The office in the browser (issue 19), with the real binary twice and
// kamailio's presence server (internal/testpeer/testdata/kamailio-presence.cfg):
//
//   node server/web/e2e/office.mjs <softphone binary> [screenshot folder]
//
// alice's phone page (headless Chromium) adds bob as a watched contact with
// the contact form, the Colleagues panel shows bob's line idle, then ringing
// while carol (the harness's pickup caller, which accepts Replaces) calls
// bob's phone (a second softphone), and one click on "Pick up" gives alice
// the call while bob's phone stops ringing. Run it inside `unshare -n`.
// Prints "N passed, N failed" and exits non-zero on a failure.
import { chromium } from 'playwright-core';
import { startPhone, stopPhone, freePort, spawnGroup } from './peers.mjs';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const testdata = join(repo, 'internal/testpeer/testdata');
const [binary, outArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!binary) {
  console.error('usage: node server/web/e2e/office.mjs <softphone binary> [screenshot folder]');
  process.exit(2);
}
const out = resolve(outArg ?? 'test-artifacts');
mkdirSync(out, { recursive: true });

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log('ok   ' + name); } else { failed++; console.log('FAIL ' + name + (detail ? ': ' + detail : '')); }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(what, fn, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) { if (await fn()) return true; await sleep(100); }
  throw new Error('timed out waiting for ' + what);
}
function listening(port) {
  const want = '0100007F:' + port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/udp', 'utf8').split('\n').some((l) => l.trim().split(/\s+/)[1] === want);
}

// kamailio with the presence modules, on a free port.
async function kamailioPresence() {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-kamp-'));
  execFileSync('sh', [join(testdata, 'presence-db.sh'), dir]);
  const port = await freePort();
  const cfg = readFileSync(join(testdata, 'kamailio-presence.cfg'), 'utf8').replaceAll('@PORT@', String(port)).replaceAll('@RUNDIR@', dir);
  writeFileSync(join(dir, 'kamailio.cfg'), cfg);
  const { stop } = spawnGroup('kamailio', ['-f', join(dir, 'kamailio.cfg'), '-DD', '-E', '-Y', dir, '-m', '64', '-M', '8'], join(dir, 'kamailio.log'));
  await waitFor('kamailio', () => listening(port));
  return { port, dir, stop };
}

// home writes a phone's settings and its account password (secrets.json:
// no keyring in the namespace).
function home(user, kamPort) {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-office-' + user + '-'));
  const id = user === 'alice' ? '0b6f4a52-7c1e-4d3a-9e8f-1a2b3c4d5e6f' : '1c7a5b63-8d2f-4e4b-8f9a-2b3c4d5e6f70';
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({
    sip: { listen: '127.0.0.1:0' },
    accounts: [{ id, name: user, username: user, domain: '127.0.0.1', port: kamPort, transport: 'udp', expiry_s: 300, enabled: true, presence: true }],
  }));
  execFileSync(resolve(binary), ['--home', dir, 'secret', 'set', 'account:' + id], {
    input: user + 'pw', env: { ...process.env, HOME: dir, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
  });
  return dir;
}

let kam, alice, bob, caller, browser;
try {
  kam = await kamailioPresence();
  const env = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' };
  Object.assign(process.env, env);
  alice = startPhone(binary, home('alice', kam.port));
  bob = startPhone(binary, home('bob', kam.port));
  const url = await alice.url;
  await bob.url;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run',
      '--allow-loopback-in-peer-connection', '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'],
  });
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector('#accounts [data-state="registered"]', { timeout: 15000 });

  // The contact form: bob, watched.
  await page.goto(new URL('/contacts', url).href);
  await page.fill('#f-name', 'Bob');
  await page.fill('#f-number', 'bob');
  await page.check('input[name="watch"]');
  await page.click('#contact-form button[type="submit"]');
  await page.waitForSelector('#contact-list li:has-text("Bob")');
  check('the contact form keeps "watch"', (await page.locator('#contact-list li:has-text("Bob") [data-line]').count()) === 1);

  await page.goto(new URL('/', url).href); // the printed link works once
  await page.waitForSelector('#lamps [data-line="idle"]', { timeout: 15000 });
  check('the Colleagues panel shows bob free', (await page.textContent('#lamps'))?.includes('Bob'));
  await page.screenshot({ path: join(out, 'office-01-idle.png'), fullPage: true });

  // carol calls bob; bob's phone rings; alice's panel shows it with a Pick up button.
  const port = await freePort();
  let callerOut = '';
  caller = spawn('python3', [join(testdata, 'pickup_caller.py'), '--proxy', '127.0.0.1:' + kam.port, '--user', 'carol',
    '--password', 'carolpw', '--to', 'bob', '--port', String(port), '--rtp-port', String(port + 2), '--timeout', '30']);
  caller.stdout.on('data', (d) => { callerOut += d; });
  await waitFor('carol ringing at bob', () => /^ringing/m.test(callerOut));
  const t0 = Date.now();
  await page.waitForSelector('#lamps [data-line="ringing"] button', { timeout: 5000 });
  check('the panel shows bob ringing with a Pick up button', true, (Date.now() - t0) + ' ms');
  await page.screenshot({ path: join(out, 'office-02-ringing.png'), fullPage: true });

  await page.click('#lamps [data-line="ringing"] button');
  await page.waitForSelector('#calls [data-state="active"]', { timeout: 10000 });
  check('one click: alice has the call', true);
  await waitFor('carol replaced', () => /^replaced-by/m.test(callerOut) && /^cancelled-original/m.test(callerOut), 5000)
    .then(() => check('carol\'s call went to alice, bob\'s ringing was cancelled', true))
    .catch(() => check('carol\'s call went to alice, bob\'s ringing was cancelled', false, callerOut));
  await page.waitForSelector('#lamps [data-line="idle"]', { timeout: 5000 })
    .then(() => check('bob\'s line is free again', true)).catch(() => check('bob\'s line is free again', false));
  await page.screenshot({ path: join(out, 'office-03-picked-up.png'), fullPage: true });
  await page.click('#calls [data-state="active"] button[data-action="hangup"], #calls [data-state="active"] [hx-post$="/hangup"]').catch(() => {});
  check('no script errors', errors.length === 0, errors.join('; '));
} catch (e) {
  check('office walk', false, String(e?.stack ?? e));
  if (alice) console.log('alice log:\n' + alice.log().split('\n').slice(-30).join('\n'));
  if (browser) for (const c of browser.contexts()) for (const pg of c.pages()) await pg.screenshot({ path: join(out, 'office-failed.png'), fullPage: true }).catch(() => {});
} finally {
  if (browser) await browser.close();
  if (caller && caller.exitCode === null) caller.kill('SIGTERM');
  for (const p of [alice, bob]) if (p) await stopPhone(p.proc);
  if (kam) kam.stop();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
