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

    // Issue 16: Enter on a contact's name calls that person's number.
    await page.goto(at('/contacts'));
    await page.fill('#f-name', 'Bob Baresip');
    await page.fill('#f-number', 'bob');
    await page.click('#contact-form button[type=submit]');
    await page.waitForSelector('#contact-list >> text=Bob Baresip', { timeout: 10000 }).catch(() => {});
    await page.goto(at('/'));
    await page.fill('#number', 'Bob Bar');
    await page.waitForSelector('#dial-suggest option[value="bob"]', { state: 'attached', timeout: 10000 }).catch(() => {});
    check('day: the dial field suggests the contact', (await page.locator('#dial-suggest option[value="bob"]').count()) > 0);
    await page.fill('#number', 'Bob Baresip');
    await page.press('#number', 'Enter');
    await page.waitForSelector('#calls [data-state="active"]', { timeout: 20000 }).catch(() => {});
    check('day: Enter on a name calls the contact', (await page.getAttribute('#calls [data-call-id]', 'data-number').catch(() => '')) === 'bob');
    await page.click('#calls [data-action="hangup"]').catch(() => {});
    await page.waitForSelector('#calls .ended-call[data-why="why.local"]', { timeout: 10000 }).catch(() => {});
    check('day: the ended call says "Ended by you"', ((await page.textContent('#calls .ended-call').catch(() => '')) ?? '').includes('Ended by you'));

    // A call to a user the PBX does not know says why, with the SIP status.
    await page.fill('#number', 'nosuchuser');
    await page.press('#number', 'Enter');
    await page.waitForSelector('#calls .ended-call[data-why="why.notfound"]', { timeout: 20000 }).catch(() => {});
    const card = (await page.textContent('#calls .ended-call').catch(() => '')) ?? '';
    check('day: unknown user: "No such number" with SIP 404', card.includes('No such number') && card.includes('SIP 404'), card);
    await shot('25-no-such-number');

    // A missed call: the badge on History and the missed list on the phone page.
    await bob.ctrl('dial', `sip:alice@127.0.0.1:${kam.port}`);
    await page.waitForSelector('#calls [data-state="ringing-in"]', { timeout: 20000 }).catch(() => {});
    await bob.ctrl('hangup');
    await page.waitForSelector('#missed .missed-count', { timeout: 20000 }).catch(() => {});
    check('day: missed-calls badge on the navigation', await page.isVisible('#missed .missed-count'));
    await page.waitForSelector('#recent .missed .callback', { timeout: 10000 }).catch(() => {});
    check('day: the missed call is on the phone page with Call back', await page.isVisible('#recent .missed .callback'));
    await shot('26-missed');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^History/ }).click();
    await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'History', null, { timeout: 10000 }).catch(() => {});
    check('day: History clears the badge', !(await page.isVisible('#missed .missed-count')));
    const failed = page.locator('article[data-why="why.notfound"]').first();
    check('day: History says "No such number" with SIP 404', ((await failed.textContent().catch(() => '')) ?? '').includes('SIP 404'));
    check('day: History never shows "Ended by failed"', !(await page.textContent('#history-entries')).includes('Ended by failed'));
    check('day: the chart is folded', !(await page.locator('#history-chart').evaluate((d) => d.open)));
    await shot('27-history-words');
  } catch (e) {
    check('day', false, String(e?.stack ?? e) + '\nbaresip:\n' + bob.log().slice(-1500));
  } finally {
    bob.stop();
    kam.stop();
  }
}
