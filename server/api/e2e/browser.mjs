// Browser checks of the local API in headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core), run by browser_test.go:
//
//   node server/api/e2e/browser.mjs <click-to-call page URL> <recording page URL>
//
// 1. Click-to-call: a page of another origin posts {"number"} to POST /calls
//    with Content-Type application/json (so the browser sends a CORS
//    preflight first, and sends the POST only when it passes) and shows the
//    call id it gets back (readable only with the CORS headers).
// 2. The recording page: the transcript renders, the player loads the audio
//    (Range requests), and a click on a transcript line moves the player to
//    that line's moment.
// Prints "ok ..." / "FAIL ..." lines and exits non-zero on a failure.
import { chromium } from 'playwright-core';

const [callPage, recPage] = process.argv.slice(2);
let failed = 0;
function check(name, ok, detail = '') {
  console.log((ok ? 'ok   ' : 'FAIL ') + name + (ok || !detail ? '' : ': ' + detail));
  if (!ok) failed++;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--autoplay-policy=no-user-gesture-required'],
});
try {
  const page = await browser.newPage();
  await page.goto(callPage);
  await page.click('#call');
  await page.waitForFunction(() => document.querySelector('#result').textContent !== '', null, { timeout: 10000 });
  const result = await page.textContent('#result');
  check('click-to-call answered with a call id', /^[0-9a-f-]{36}$/.test(result), result);

  await page.goto(recPage);
  const lines = await page.$$('#transcript .line');
  check('transcript lines render', lines.length === 2, String(lines.length));
  const text = await page.textContent('#transcript');
  check('transcript text is escaped and shown', text.includes('<b>really</b>') && text.includes('cancel my contract'), text);
  await page.waitForFunction(() => document.querySelector('#player').readyState >= 1, null, { timeout: 10000 });
  const duration = await page.evaluate(() => document.querySelector('#player').duration);
  check('player knows the duration', Math.abs(duration - 2) < 0.1, String(duration));
  await lines[1].click();
  await page.waitForFunction(() => Math.abs(document.querySelector('#player').currentTime - 3.2) < 0.05 ||
    document.querySelector('#player').currentTime >= 1.9, null, { timeout: 10000 });
  // The file is 2 s long: seeking to 3.2 s lands at its end; line 1 (0.5 s) is inside it.
  await lines[0].click();
  await page.waitForFunction(() => Math.abs(document.querySelector('#player').currentTime - 0.5) < 0.3, null, { timeout: 10000 });
  const t = await page.evaluate(() => document.querySelector('#player').currentTime);
  check('a click on a line seeks the player', Math.abs(t - 0.5) < 0.3, String(t));
} catch (err) {
  check('browser run', false, String(err));
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
