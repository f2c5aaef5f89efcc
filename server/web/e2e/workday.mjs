// The day's path of issue 7 against real peers; used by day.mjs --day.
import { kamailio } from './peers.mjs';
import { baresip } from './tones.mjs';

// submit clicks what sends a form (htmx) and waits for the phone's answer.
async function submit(page, target) {
  await Promise.all([
    page.waitForResponse((r) => r.request().method() !== 'GET', { timeout: 10000 }).catch(() => {}),
    target.click(),
  ]);
}

export async function workday(page, shot, url, check) {
  const at = (p) => new URL(p, url).href;
  const kam = await kamailio();
  const bob = await baresip({ user: 'bob', pass: 'bobpw', registrar: `127.0.0.1:${kam.port}`, hz: 440 });
  try {
    // An account added in the settings registers; the phone page shows it live.
    await page.goto(at('/settings'));
    await page.fill('#f-name', 'Alice');
    await page.fill('#f-username', 'alice');
    await page.fill('#f-password', 'alicepw');
    await page.fill('#f-domain', '127.0.0.1');
    await page.fill('#f-port', String(kam.port));
    await page.fill('#f-outbound_proxy', `127.0.0.1:${kam.port}`);
    await page.click('#sec-accounts button[value=save]');
    await page.waitForSelector('#sec-accounts [role=status]', { timeout: 10000 }).catch(() => {});
    await page.goto(at('/'));
    await page.waitForSelector('#accounts [data-state="registered"]', { timeout: 20000 }).catch(() => {});
    check('day: account registers', await page.isVisible('#accounts [data-state="registered"]'));
    await shot('20-registered');

    // Dial bob from the dial pad; his tone reaches the speaker.
    await page.fill('#number', 'bob');
    await page.click('#dial-form button[type=submit]');
    await page.waitForSelector('#calls [data-state="active"]', { timeout: 20000 }).catch(() => {});
    check('day: call to bob is connected', await page.isVisible('#calls [data-state="active"]'));
    let level = 0;
    for (let i = 0; i < 50 && level < 0.05; i++) {
      level = await page.evaluate(() => Number(document.querySelector('#level-speaker')?.value ?? 0));
      await page.waitForTimeout(200);
    }
    check('day: bob\'s tone is heard (speaker level)', level >= 0.05, 'level ' + level);
    await shot('21-call');
    await page.click('#calls [data-action="hold"]');
    await page.waitForSelector('#calls [data-state="hold"]', { timeout: 10000 }).catch(() => {});
    check('day: hold', await page.isVisible('#calls [data-state="hold"]'));
    await page.click('#calls [data-action="resume"]');
    await page.waitForSelector('#calls [data-state="active"]', { timeout: 10000 }).catch(() => {});
    check('day: resume', await page.isVisible('#calls [data-state="active"]'));
    await page.click('#calls details.more >> nth=0');
    await submit(page, page.locator('#calls .dialpad.small button:has-text("5")'));
    check('day: DTMF sent without error', !((await page.textContent('#flash')) ?? '').trim());
    await page.click('#calls [data-action="hangup"]');
    await page.waitForSelector('#calls [data-calls="0"]', { timeout: 10000 }).catch(() => {});
    check('day: hang up', await page.isVisible('#calls [data-calls="0"]'));

    // The history entry: tagged and noted.
    await page.goto(at('/history'));
    const entry = page.locator('article[data-outcome="answered"]').first();
    check('day: history shows the answered call', await entry.isVisible().catch(() => false));
    await entry.locator('summary').click();
    await entry.locator('input[name=tags]').first().check();
    await submit(page, entry.locator('form:has(input[name=tags]) button[type=submit]'));
    const first = page.locator('article[data-outcome="answered"]').first();
    await first.locator('summary').click().catch(() => {});
    await first.locator('textarea[name=note]').fill('Asked for the offer');
    await first.locator('form:has(textarea) button[type=submit]').click();
    await page.waitForSelector('article[data-outcome="answered"] .note', { timeout: 10000 }).catch(() => {});
    const text = await page.locator('article[data-outcome="answered"]').first().textContent();
    check('day: tag and note kept', text.includes('Asked for the offer') && (await page.locator('article[data-outcome="answered"] .tags .badge').count()) > 0);
    await shot('22-history-tagged');

    // An incoming call rings on any page (here: History) and is answered with
    // a click; when it ends, the history shows it without a reload.
    const before = await page.locator('#history-entries article').count();
    await bob.ctrl('dial', `sip:alice@127.0.0.1:${kam.port}`);
    await page.waitForSelector('#calls [data-state="ringing-in"]', { timeout: 20000 }).catch(() => {});
    check('day: incoming call rings', await page.isVisible('#calls [data-state="ringing-in"]'));
    check('day: the ringer runs', await page.evaluate(() => window.softphone?.ringer?.ringing?.() === true));
    await shot('23-incoming');
    await page.click('#calls [data-action="answer"]');
    await page.waitForSelector('#calls [data-state="active"]', { timeout: 10000 }).catch(() => {});
    check('day: answered with a click', await page.isVisible('#calls [data-state="active"]'));
    await page.click('#calls [data-action="hangup"]');
    await page.waitForSelector('#calls [data-calls="0"]', { timeout: 10000 }).catch(() => {});
    await page.waitForFunction((n) => document.querySelectorAll('#history-entries article').length > n, before, { timeout: 10000 }).catch(() => {});
    check('day: history shows the new call without a reload', (await page.locator('#history-entries article').count()) > before);
    await shot('24-history-live');
  } catch (e) {
    check('day', false, String(e?.stack ?? e) + '\nbaresip:\n' + bob.log().slice(-1500));
  } finally {
    bob.stop();
    kam.stop();
  }
}
