// What the page tests with one phone share (micrefused, micswitch,
// ringtitle, tabcopy, ringheld, notify, swopen): a home whose one account,
// alice, registers at the test's kamailio, the flags Chromium runs with,
// and the tally of checks each prints as "N passed, N failed".
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// aliceHome makes a phone home for binary: settings.json with alice's
// account at 127.0.0.1:kamPort (UDP), her password set with the binary's
// own `secret set` (no keyring here: it goes to secrets.json).
export function aliceHome(binary, kamPort, name) {
  const dir = mkdtempSync(join(tmpdir(), `e2e-${name}-`));
  const id = randomUUID();
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({
    sip: { listen: '127.0.0.1:0' },
    accounts: [{ id, name: 'Alice', username: 'alice', domain: '127.0.0.1', port: kamPort, transport: 'udp', expiry_s: 300, enabled: true }],
  }));
  execFileSync(resolve(binary), ['--home', dir, 'secret', 'set', 'account:' + id], {
    input: 'alicepw', env: { ...process.env, HOME: dir },
  });
  return dir;
}

// chromiumArgs are headless Chromium's flags for these tests, then extra
// (a fake microphone, its permission prompt answered, an autoplay policy).
export function chromiumArgs(...extra) {
  return ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', ...extra];
}

// tally counts checks: check prints each, exit prints the sum and ends the
// process, non-zero when one failed.
export function tally() {
  const t = {
    passed: 0,
    failed: 0,
    check(name, ok, detail = '') {
      if (ok) { t.passed++; console.log('ok   ' + name); } else { t.failed++; console.log('FAIL ' + name + (detail ? ': ' + detail : '')); }
    },
    exit() {
      console.log(`${t.passed} passed, ${t.failed} failed`);
      process.exit(t.failed ? 1 : 0);
    },
  };
  return t;
}
