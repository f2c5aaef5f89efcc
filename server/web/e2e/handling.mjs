// The Settings page's Call handling section in Chromium and Firefox ESR
// (drivers.mjs, default prefs) against the real binary:
//
//   node server/web/e2e/handling.mjs <softphone binary>
//
// A silence timeout of 3 s is refused next to its field in the page's
// words and nothing of the form is saved; 0 (never) with auto-answer and
// direct calls is saved, said, and written to settings.json; the page
// after a reload shows what was saved. Run inside `unshare -n`
// (scripts/e2e.sh). Prints "N passed, N failed"; non-zero on a failure.
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startPhone, stopPhone } from './peers.mjs';
import { tally } from './alice.mjs';
import { launch } from './drivers.mjs';
import { sine } from './tones.mjs';

const [binary] = process.argv.slice(2);
if (!binary) {
  console.error('usage: node server/web/e2e/handling.mjs <softphone binary>');
  process.exit(2);
}

const t = tally();
const { check } = t;
const work = mkdtempSync(join(tmpdir(), 'e2e-handling-'));
const mic = join(work, 'mic.wav');
sine(mic, 440, 48000, 1);

// fill sets the section's fields and submits it the way a click on Save does.
const fill = (v) => {
  const f = document.querySelector('#sec-handling form');
  f.querySelector('[name="sip.auto_answer"]').checked = v.auto;
  f.querySelector('[name="sip.accept_calls_from"]').value = v.from;
  f.querySelector('[name="sip.media_timeout_s"]').value = v.media;
  f.requestSubmit();
};

async function run(which) {
  const home = join(work, which);
  mkdirSync(home);
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ sip: { listen: '127.0.0.1:0' }, ui: { port: await freePort() }, startup: { open_page: false } }));
  const app = startPhone(binary, home, { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' } });
  let browser;
  try {
    const url = await app.url;
    browser = await launch(which, new URL(url).origin, mic);
    const page = await browser.page();
    await page.goto(url);
    await page.until('the phone page', () => !!window.softphone);
    await page.goto(new URL('/settings#sec-handling', url).href);
    const shown = await page.until('the Call handling section', () => {
      const f = document.querySelector('#sec-handling form');
      return f ? { title: document.querySelector('#h-handling').textContent, media: f.querySelector('[name="sip.media_timeout_s"]').value } : null;
    }).catch((e) => ({ title: String(e) }));
    check(`${which}: the section is on the page with the default 30 s`, shown.title === 'Call handling' && shown.media === '30', JSON.stringify(shown));

    // The answer replaces the section; htmx takes the new form over when it
    // has settled (a person's next click comes later than a script's).
    await page.eval(fill, { auto: true, from: 'anyone', media: '3' });
    const err = await page.until('the refusal next to the field', () => document.querySelector('#sec-handling form')?.['htmx-internal-data']?.initHash ? document.querySelector('#err-sip\\.media_timeout_s')?.textContent ?? '' : '', null, 10000).catch((e) => String(e));
    check(`${which}: 3 s refused next to the field, in words`, err === 'must be 0 (never) or 5-3600 seconds, got 3', err);
    const kept = JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')).sip;
    check(`${which}: the refused form saved nothing`, (kept.media_timeout_s ?? 30) === 30 && !kept.auto_answer && (kept.accept_calls_from ?? 'servers') === 'servers', JSON.stringify(kept));

    await page.eval(fill, { auto: true, from: 'anyone', media: '0' });
    const saved = await page.until('the section to say it saved', () => document.querySelector('#sec-handling [role=status]')?.textContent ?? '', null, 10000).catch((e) => String(e));
    check(`${which}: 0 (never) saved and said`, saved !== '' && !saved.startsWith('Error'), saved + ' at ' + await page.eval(() => location.href + ': ' + document.body?.innerText.slice(0, 300)));
    const s = JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')).sip;
    check(`${which}: settings.json has it`, s.media_timeout_s === 0 && s.auto_answer === true && s.accept_calls_from === 'anyone', JSON.stringify(s));

    await page.goto(new URL('/settings', url).href);
    const again = await page.until('the settings page again', () => {
      const f = document.querySelector('#sec-handling form');
      return f ? { auto: f.querySelector('[name="sip.auto_answer"]').checked, from: f.querySelector('[name="sip.accept_calls_from"]').value, media: f.querySelector('[name="sip.media_timeout_s"]').value } : null;
    }).catch((e) => ({ media: String(e) }));
    check(`${which}: a reload shows what was saved`, again.auto === true && again.from === 'anyone' && again.media === '0', JSON.stringify(again));
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
