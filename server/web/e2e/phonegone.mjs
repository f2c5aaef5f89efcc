// The page when the phone behind it is gone, in Chromium and Firefox ESR
// (drivers.mjs) against the real binary:
//
//   node server/web/e2e/phonegone.mjs <softphone binary>
//
// The phone is killed (-9) under an open page: the page says the phone is
// not running (it said nothing; a click on Call did nothing). The phone is
// started again: the page says this page is no longer connected (its
// session died with the old run; every action was refused in silence).
// In the new run's page: a contacts file over the limit is refused by the
// page before it is sent, and by the phone in words when the page's check
// is bypassed (it was cut at 4 MiB in silence, or the connection reset);
// an action the phone refuses with a code the page has no place for
// (403) is said with its code. Run inside `unshare -n` (scripts/e2e.sh).
// Prints "N passed, N failed"; non-zero on a failure.
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startPhone, stopPhone } from './peers.mjs';
import { tally } from './alice.mjs';
import { launch } from './drivers.mjs';
import { sine } from './tones.mjs';

const [binary] = process.argv.slice(2);
if (!binary) {
  console.error('usage: node server/web/e2e/phonegone.mjs <softphone binary>');
  process.exit(2);
}

const t = tally();
const { check } = t;
const work = mkdtempSync(join(tmpdir(), 'e2e-phonegone-'));
const mic = join(work, 'mic.wav');
sine(mic, 440, 48000, 2);

// putFile puts a file of n bytes (a vCard, repeated) in the import field,
// with the page's own script: the same in both browsers.
const putFile = (n) => {
  const card = 'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Bulk Person\r\nTEL:+4930123456\r\nEND:VCARD\r\n';
  const f = new File([card.repeat(Math.ceil(n / card.length)).slice(0, n)], 'big.vcf', { type: 'text/vcard' });
  const dt = new DataTransfer();
  dt.items.add(f);
  document.querySelector('#f-file').files = dt.files;
};

async function run(which) {
  const home = join(work, which);
  const uiPort = await freePort();
  mkdirSync(home);
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ sip: { listen: '127.0.0.1:0' }, ui: { port: uiPort }, startup: { open_page: false } }));
  let app = startPhone(binary, home, { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' } });
  let browser;
  try {
    const url = await app.url;
    browser = await launch(which, new URL(url).origin, mic);
    const page = await browser.page();
    await page.goto(url);
    await page.until('the phone page', () => !!document.querySelector('#link-words') && !!window.softphone);
    const words = await page.eval(() => ({ ...document.querySelector('#link-words').dataset }));
    const banner = () => page.eval(() => { const b = document.querySelector('#link-lost'); return b.hidden ? '' : b.textContent; });
    check(`${which}: a running phone, no banner`, (await banner()) === '' && !!words.down && !!words.session, JSON.stringify(words));

    app.proc.kill('SIGKILL');
    await new Promise((r) => app.proc.exitCode !== null || app.proc.signalCode !== null ? r() : app.proc.on('exit', r));
    const down = await page.until('the page to say the phone is not running', (w) => {
      const b = document.querySelector('#link-lost');
      return !b.hidden && b.textContent === w && b.getAttribute('role') === 'alert' ? b.textContent : '';
    }, words.down, 15000).catch((e) => String(e));
    check(`${which}: phone killed: the page says it is not running`, down === words.down, down);

    app = startPhone(binary, home, { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' } });
    const url2 = await app.url;
    check(`${which}: started again on the same port`, new URL(url2).port === String(uiPort), url2);
    const again = await page.until('the page to say it is no longer connected', (w) => {
      const b = document.querySelector('#link-lost');
      return !b.hidden && b.textContent === w ? b.textContent : '';
    }, words.session, 15000).catch((e) => String(e));
    check(`${which}: phone started again: the old page says it is no longer connected`, again === words.session, again);

    // The new run's page: contacts.
    const p2 = await browser.page();
    await p2.goto(url2);
    await p2.until('the phone page of the new run', () => !!document.querySelector('#link-words'));
    await p2.goto(new URL('/contacts', url2).href);
    await p2.until('the contacts page', () => !!document.querySelector('#f-file') && !!window.htmx);
    check(`${which}: the new run's page has no banner`, (await p2.eval(() => document.querySelector('#link-lost').hidden)) === true);
    await p2.eval(() => {
      window.__posts = [];
      const open = XMLHttpRequest.prototype.open;
      XMLHttpRequest.prototype.open = function (m, u, ...rest) { window.__posts.push(m + ' ' + u); return open.call(this, m, u, ...rest); };
    });
    const max = Number(await p2.eval(() => document.querySelector('#f-file').dataset.max));
    const toobig = await p2.eval(() => document.querySelector('#f-file').dataset.toobig);
    await p2.eval(putFile, max + 1);
    await p2.eval(() => document.querySelector('#f-file').form.requestSubmit());
    const refused = await p2.until('the page to refuse the file', () => document.querySelector('#err-file')?.textContent ?? '', null, 5000).catch((e) => String(e));
    const posts = await p2.eval(() => window.__posts.join(', '));
    check(`${which}: a file over ${max} bytes: the page says so and sends nothing`, max === 4 << 20 && refused === toobig && /4 MB/.test(toobig) && posts === '', `${refused} | posts: ${posts}`);

    // The page's check bypassed: the phone refuses a body over its limit
    // (8 MiB) in words, and the browser reads the answer (no reset).
    await p2.eval(() => { const f = document.querySelector('#f-file'); delete f.dataset.max; document.querySelector('#err-file')?.remove(); });
    await p2.eval(putFile, 9 << 20);
    await p2.eval(() => document.querySelector('#f-file').form.requestSubmit());
    const flash = await p2.until('the phone to refuse the body', () => document.querySelector('#flash')?.textContent?.trim() ?? '', null, 15000).catch((e) => String(e));
    const tooLarge = which === 'firefox' ? /zu groß|too large/ : /too large/;
    check(`${which}: a body over the phone's limit: the page says it was too large`, tooLarge.test(flash) && /nothing was saved|Nichts/.test(flash), flash);

    // An action refused with a code the page does not swap in (403: a
    // wrong CSRF token) is said, with its code.
    await p2.eval(() => {
      document.querySelector('#flash').textContent = '';
      document.body.setAttribute('hx-headers', JSON.stringify({ 'X-CSRF-Token': 'wrong' }));
      document.querySelector('#contact-form input[name=csrf]').value = 'wrong';
      document.querySelector('#f-name').value = 'Refused Person';
      document.querySelector('#f-number').value = '+4930999';
      document.querySelector('#contact-form').requestSubmit();
    });
    const said = await p2.until('the refusal to be said', () => document.querySelector('#flash')?.textContent ?? '', null, 10000).catch((e) => String(e));
    check(`${which}: a 403 is said with its code`, said === words.failed.replace('%d', '403'), said);
    await p2.goto(new URL('/contacts', url2).href);
    const list = await p2.until('the contacts page again', () => document.querySelector('#contact-list')?.textContent ?? null, null, 10000).catch((e) => String(e));
    check(`${which}: the refused action saved nothing`, !list.includes('Refused Person') && list.includes('Bulk Person') === false, list.slice(0, 200));
  } catch (e) {
    check(`${which}: the walk ran to its end`, false, String(e?.stack ?? e) + '\nphone log:\n' + app.log().split('\n').slice(-40).join('\n'));
  } finally {
    await browser?.close();
    await stopPhone(app.proc).catch(() => {});
  }
}

try {
  for (const which of ['chromium', 'firefox']) await run(which);
} finally {
  rmSync(work, { recursive: true, force: true });
}
t.exit();
