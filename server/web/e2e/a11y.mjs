// axe-core on every page, in both themes and both languages (issue 16
// item 7), and the first run's welcome card against a real PBX (item 8).
//
//   node server/web/e2e/a11y.mjs <softphone binary> [artefact folder]
//
// Run inside `unshare -n` (scripts/e2e.sh does). It starts kamailio and a
// baresip "bob" (peers.mjs, tones.mjs), the real binary with a fresh home
// (local API and recording of every call switched on in settings.json), and
// Debian's chromium (playwright-core):
//   1. the welcome card in light/dark x English/German, scanned by axe;
//   2. the welcome card's form: a wrong password stays on the card with the
//      PBX's cause in the page's language, the right one registers and the
//      dial pad follows;
//   3. one call to bob (recorded, so the recording pages have a row);
//   4. every page (phone, contacts, history, recordings, settings with all
//      its tabs, the /ui recordings list, a recording's page, the local
//      API's index, the phone page during a call) in light/dark x
//      English/German: axe-core (pinned in package.json) with its default
//      rules, zero violations allowed; a full-page screenshot of each at 360
//      and 1280 px lands in <artefact folder>/a11y/;
//   5. Settings: the state beside the account follows a password change
//      live (wrong: refused with the PBX's cause in words; right: registered);
//   6. Test registration against a UDP socket that never answers: progress,
//      then "no answer from the PBX within 20 s" (in German).
// Prints "a11y: N passed, N failed" and exits non-zero on a failure.
import { chromium } from 'playwright-core';
import { createRequire } from 'node:module';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { kamailio, startPhone, stopPhone, freePort } from './peers.mjs';
import { baresip } from './tones.mjs';
import { createSocket } from 'node:dgram';

const [binary, outArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!binary) {
  console.error('usage: node server/web/e2e/a11y.mjs <softphone binary> [artefact folder]');
  process.exit(2);
}
const out = join(resolve(outArg ?? 'test-artifacts'), 'a11y');
mkdirSync(out, { recursive: true });
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log('ok   ' + name); } else { failed++; console.log('FAIL ' + name + (detail ? ': ' + detail : '')); }
}

// axe runs axe-core on the page as it is and gives its violations, each
// with the first nodes it names (enough to find them).
async function axe(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ content: axeSource });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ') + ' ' + (n.failureSummary ?? '').split('\n').slice(1, 2).join(' ').trim()) }));
  });
}

// scan checks one page at both widths: axe finds nothing, the screenshots are kept.
async function scan(page, name, tag) {
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: width === 360 ? 740 : 900 });
    const v = await axe(page);
    check(`axe ${name} ${tag} ${width}px: no violations`, v.length === 0, JSON.stringify(v, null, 1));
    await page.screenshot({ path: join(out, `${name}-${tag}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

const combos = [['light', 'en'], ['dark', 'en'], ['light', 'de'], ['dark', 'de']];

const home = mkdtempSync(join(tmpdir(), 'softphone-a11y-'));
const peers = [];
let app, browser;
try {
  const kam = await kamailio();
  peers.push(kam);
  const registrar = `127.0.0.1:${kam.port}`;
  const bob = await baresip({ user: 'bob', pass: 'bobpw', registrar, hz: 440 });
  peers.push(bob);
  const apiPort = await freePort();
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ api: { enabled: true, port: apiPort }, recording: { mode: 'all' } }));
  app = startPhone(binary, home);
  const url = await app.url;
  const at = (p) => new URL(p, url).href;
  const api = (p) => `http://127.0.0.1:${apiPort}${p}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--allow-loopback-in-peer-connection', '--autoplay-policy=no-user-gesture-required',
      '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'],
  });
  // bypassCSP: the pages allow no inline script, and axe is injected as one.
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  await ctx.grantPermissions(['microphone', 'notifications'], { origin: new URL(url).origin });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // Refused forms (422) are on purpose; Chromium logs them as errors.
  page.on('console', (m) => { if (m.type() === 'error' && !/status of (400|422)/.test(m.text())) errors.push(m.text()); });
  await page.goto(url);

  // look sets theme and language as a person does, in the Settings page's
  // Appearance section (the page reloads in the new language).
  async function look(theme, lang) {
    await page.goto(at('/settings'));
    await page.selectOption('#f-appearance\\.theme', theme);
    await page.selectOption('#f-appearance\\.language', lang);
    // Saving the look reloads the page (as day.mjs waits for too).
    await Promise.all([
      page.waitForEvent('load', { timeout: 10000 }).catch(() => {}),
      page.click('#sec-appearance button[type=submit]'),
    ]);
    await page.goto(at('/settings'));
    const got = await page.evaluate(() => [document.documentElement.dataset.theme, document.documentElement.lang]);
    if (got[0] !== theme || got[1] !== lang) throw new Error(`appearance not taken: ${got}`);
  }
  async function open(href) {
    await page.goto(href);
    await page.waitForSelector('h1');
  }

  // 1. The welcome card in every look.
  for (const [theme, lang] of combos) {
    await look(theme, lang);
    await open(at('/'));
    check(`welcome card shown (${theme}, ${lang})`, await page.isVisible('#welcome-form'));
    await scan(page, 'welcome', `${theme}-${lang}`);
  }

  // 2. The welcome card's form, in German (the last look): a wrong password
  // stays on the card with the PBX's cause in German; "More" holds the port.
  await open(at('/'));
  await page.fill('#f-domain', '127.0.0.1');
  await page.fill('#f-username', 'alice');
  await page.fill('#f-password', 'wrong');
  await page.click('#welcome .more summary');
  await page.fill('#f-port', String(kam.port));
  await page.click('#welcome-form button[type=submit]');
  await page.waitForSelector('#welcome-failed', { timeout: 25000 }).catch(() => {});
  const said = (await page.textContent('#welcome-failed').catch(() => '')) ?? '';
  check('welcome: a wrong password is refused in the page\'s language', said.includes('401 Unauthorized: falsches Passwort'), said);
  check('welcome: nothing saved after a refusal', !(readFileSync(join(home, 'settings.json'), 'utf8').includes('"alice"')));
  await page.screenshot({ path: join(out, 'welcome-refused-de-1280.png'), fullPage: true });
  await page.fill('#f-password', 'alicepw');
  if (!(await page.isVisible('#f-port'))) await page.click('#welcome .more summary');
  check('welcome: typed fields are kept', (await page.inputValue('#f-port')) === String(kam.port) && (await page.inputValue('#f-domain')) === '127.0.0.1');
  await page.click('#welcome-form button[type=submit]');
  await page.waitForSelector('#dial-form', { timeout: 25000 }).catch(() => {});
  check('welcome: the right password leads to the dial pad', await page.isVisible('#dial-form'));
  await page.waitForSelector('#accounts [data-state="registered"]', { timeout: 20000 }).catch(() => {});
  check('welcome: the new line is registered', await page.isVisible('#accounts [data-state="registered"]'));
  await page.screenshot({ path: join(out, 'welcome-done-de-1280.png'), fullPage: true });

  // 3. One call to bob, recorded; its page is scanned while it is up.
  await look('light', 'en');
  // A contact, so the lists have rows (and Delete buttons) to scan.
  await open(at('/contacts'));
  await page.fill('#f-name', 'Bob Builder');
  await page.fill('#f-number', 'bob');
  await page.click('#contact-form button[type=submit]');
  await page.waitForSelector('#contact-list >> text=Bob Builder', { timeout: 10000 }).catch(() => {});
  check('contact added', (await page.textContent('#contact-list'))?.includes('Bob Builder'));
  await open(at('/'));
  await page.waitForSelector('#accounts [data-state="registered"]', { timeout: 20000 }).catch(() => {});
  await page.fill('#number', 'bob');
  await page.click('#dial-form button[type=submit]');
  await page.waitForSelector('#calls [data-state="active"]', { timeout: 20000 }).catch(() => {});
  const inCall = await page.isVisible('#calls [data-state="active"]');
  check('call to bob connected', inCall, await page.evaluate(() => (document.querySelector('#flash')?.textContent ?? '') + ' | ' + (document.querySelector('#calls')?.textContent ?? '')));
  if (!inCall) await page.screenshot({ path: join(out, 'call-failed.png'), fullPage: true });
  if (inCall) {
    for (let i = 0; i < 50; i++) { // bob's tone reaches the tab: the recording has sound
      if (await page.evaluate(() => Number(document.querySelector('#level-speaker')?.value ?? 0)) >= 0.05) break;
      await page.waitForTimeout(200);
    }
    await scan(page, 'phone-in-call', 'light-en');
    await page.click('#calls [data-action="hangup"]');
    await page.waitForSelector('#calls [data-calls="0"]', { timeout: 10000 }).catch(() => {});
  }
  let recId = '';
  for (let i = 0; i < 50 && !recId; i++) {
    recId = await fetch(api('/ui'), { headers: { Accept: 'text/html' } }).then((r) => r.text())
      .then((h) => h.match(/data-id="([0-9a-f-]{36})"/)?.[1] ?? '', () => '');
    if (!recId) await page.waitForTimeout(200);
  }
  check('the call left a recording', recId !== '');

  // 4. Every page in every look.
  const pages = [['phone', at('/')], ['contacts', at('/contacts')], ['history', at('/history')],
    ['recordings', at('/recordings')], ['settings', at('/settings')], ['ui-recordings', api('/ui')],
    ['api-index', api('/')]];
  if (recId) pages.push(['ui-recording', api('/ui/recordings/' + recId)]);
  for (const [theme, lang] of combos) {
    await look(theme, lang);
    for (const [name, href] of pages) {
      await open(href);
      await scan(page, name, `${theme}-${lang}`);
      if (name === 'settings') {
        // The tabs at 360 px: each label on one line, inside the page, nothing sideways.
        await page.setViewportSize({ width: 360, height: 740 });
        const bad = await page.evaluate(() => [...document.querySelectorAll('.tabs a')].filter((a) => {
          const r = a.getBoundingClientRect(), lh = parseFloat(getComputedStyle(a).lineHeight) || 24;
          return r.right > innerWidth || r.left < 0 || a.scrollWidth > a.clientWidth + 1 || r.height > lh * 1.6 + 12;
        }).map((a) => a.textContent).concat(document.documentElement.scrollWidth > 362 ? ['page ' + document.documentElement.scrollWidth] : []));
        check(`settings tabs fit at 360 px (${theme}, ${lang})`, bad.length === 0, bad.join(', '));
        await page.screenshot({ path: join(out, `settings-tabs-${theme}-${lang}-360.png`) });
        await page.setViewportSize({ width: 1280, height: 900 });
      }
    }
  }
  if (recId) {
    await open(api('/ui/recordings/' + recId));
    const h1 = (await page.textContent('h1'))?.trim() ?? '';
    check('the recording page\'s heading names the party and the time', /bob/i.test(h1) && /\d{1,2}:\d{2}/.test(h1), h1);
  }

  // 5. Settings (German, the last look): the state beside the account
  // follows a password change without a reload (the line registers again at
  // once: kamailio refuses the wrong password, takes the right one).
  await open(at('/settings'));
  const acct = ((await page.getAttribute('#sec-accounts .regstate-slot', 'id')) ?? '').replace('regstate-', '');
  // Within 25 s: the PBX answers in milliseconds, but a state that reached
  // the page just before the save's own answer was swapped in shows only at
  // the stream's next send (a change, at the latest its 20 s heartbeat).
  const stateIs = (st) => page.waitForFunction((w) => document.querySelector('#sec-accounts .regstate')?.dataset.state === w, st, { timeout: 25000 }).then(() => true, () => false);
  const stateNow = async () => (await page.textContent('#sec-accounts .regstate').catch(() => ''))?.trim() ?? '';
  // setPassword saves a new password in the account's edit form and marks
  // the document, so a reload would show.
  async function setPassword(pw) {
    await open(at('/settings?account=' + acct));
    const editing = (await page.inputValue('#sec-accounts input[name=id]')) === acct;
    await page.evaluate(() => {
      window.__noReload = true; window.__sse = [];
      document.body.addEventListener('htmx:sseBeforeMessage', (e) => window.__sse.push(e.detail.type));
      document.body.addEventListener('htmx:sseError', () => window.__sse.push('ERROR'));
    });
    await page.fill('#f-password', pw);
    await page.click('#sec-accounts button[value=save]');
    return editing;
  }
  const edited = await setPassword('wrong');
  const refused = await stateIs('failed');
  const words = await stateNow();
  // What the phone itself says (GET /accounts), to tell the page from the line.
  const phoneSays = async () => (await fetch(api('/accounts')).then((r) => r.json()).then((l) => l.map((a) => a.state + ' ' + a.cause).join('; '), (e) => String(e)))
    + '; page heard: ' + (await page.evaluate(() => (window.__sse ?? []).join(' ')));
  check('settings: a wrong new password is refused at once, in words', edited && refused && words.includes('401 Unauthorized: falsches Passwort'), `${words} (edited ${edited}; phone: ${await phoneSays()})`);
  check('settings: the state changed without a reload', await page.evaluate(() => window.__noReload === true));
  await page.screenshot({ path: join(out, 'settings-refused-dark-de-1280.png') });
  await setPassword('alicepw');
  const back = await stateIs('registered');
  check('settings: the right password registers again at once', back, `${await stateNow()} (phone: ${await phoneSays()})`);
  if (!back) await page.screenshot({ path: join(out, 'settings-not-back.png'), fullPage: true });
  check('settings: that state too came without a reload', await page.evaluate(() => window.__noReload === true));

  // 6. Test registration against a PBX that never answers: progress while
  // it waits, then the words for silence.
  const silent = createSocket('udp4');
  await new Promise((r) => silent.bind(0, '127.0.0.1', r));
  try {
    await open(at('/settings?account=' + acct));
    await page.fill('#f-port', String(silent.address().port));
    await page.fill('#f-outbound_proxy', '');
    await page.click('#regtest-button');
    check('test registration shows progress', await page.waitForSelector('#regtest-running', { state: 'visible', timeout: 5000 }).then(() => true, () => false));
    await page.screenshot({ path: join(out, 'regtest-running-dark-de-1280.png') });
    await page.waitForSelector('#regtest', { timeout: 30000 }).catch(() => {});
    const said = (await page.textContent('#regtest').catch(() => ''))?.trim() ?? '';
    check('test registration: no answer within 20 s, in words', said === 'keine Antwort der Telefonanlage innerhalb von 20 s', said);
  } finally { silent.close(); }

  check('no script errors', errors.length === 0, errors.join(' | '));
} catch (e) {
  check('run', false, String(e?.stack ?? e));
} finally {
  await browser?.close().catch(() => {});
  if (app) {
    const code = await stopPhone(app.proc);
    check('binary stops cleanly', code === 0, 'exit ' + code + '\n' + app.log().slice(-2000));
  }
  for (const p of peers.reverse()) { try { p.stop(); } catch {} }
  rmSync(home, { recursive: true, force: true });
}
console.log(`a11y: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
