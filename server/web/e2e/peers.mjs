// Real SIP peers for the day's path of the e2e walk: kamailio as registrar
// and proxy (the project's own config, internal/testpeer/testdata) and
// baresip as "bob", answering at once and playing a tone.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

// freePorts finds a port free for both UDP and TCP on loopback.
export async function freePort() {
  for (;;) {
    const p = await new Promise((res) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const n = s.address().port; s.close(() => res(n)); }); });
    const ok = await new Promise((res) => { const u = createSocket('udp4'); u.once('error', () => res(false)); u.bind(p, '127.0.0.1', () => u.close(() => res(true))); });
    if (ok) return p;
  }
}

function listening(proto, port) {
  const want = '0100007F:' + port.toString(16).toUpperCase().padStart(4, '0');
  try {
    return readFileSync('/proc/net/' + proto, 'utf8').split('\n').slice(1).some((l) => {
      const f = l.trim().split(/\s+/);
      return f[1] === want && (proto === 'udp' || f[3] === '0A');
    });
  } catch { return false; }
}

async function waitFor(what, fn, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) { if (await fn()) return; await new Promise((r) => setTimeout(r, 100)); }
  throw new Error('timed out waiting for ' + what);
}

// Process groups of the servers started by spawnGroup that are still up.
const groups = new Set();
process.on('exit', () => { for (const pid of groups) { try { process.kill(-pid, 'SIGKILL'); } catch {} } });

// spawnGroup starts a server that forks workers (kamailio -M 8 runs about
// nine processes) in a process group of its own, its output appended to
// log; stop kills the whole group. Killing only the main process left its
// workers running after every suite (a clean CI run left over a hundred).
// Groups still up when this node process exits are killed then.
export function spawnGroup(cmd, args, log) {
  const fd = openSync(log, 'a');
  const proc = spawn(cmd, args, { stdio: ['ignore', fd, fd], detached: true });
  groups.add(proc.pid);
  proc.on('exit', () => groups.delete(proc.pid));
  const stop = () => {
    if (!groups.has(proc.pid)) return;
    try { process.kill(-proc.pid, 'SIGKILL'); } catch {}
    groups.delete(proc.pid);
  };
  return { proc, stop };
}

export async function kamailio() {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-kam-'));
  const port = await freePort();
  const cfg = readFileSync(join(repo, 'internal/testpeer/testdata/kamailio.cfg'), 'utf8')
    .replaceAll('@PORT@', String(port)).replaceAll('@RUNDIR@', dir);
  writeFileSync(join(dir, 'kamailio.cfg'), cfg);
  const { stop } = spawnGroup('kamailio', ['-f', join(dir, 'kamailio.cfg'), '-DD', '-E', '-Y', dir, '-m', '64', '-M', '8'], join(dir, 'kamailio.log'));
  await waitFor('kamailio', () => listening('udp', port) && listening('tcp', port));
  return { port, dir, stop };
}

// startPhone runs the softphone binary on home and gives its process, a
// promise of the "Phone page: URL" it prints, and its stderr so far.
// opts.browser lets it open pages (without --no-browser); opts.env is its
// environment.
export function startPhone(binary, home, opts = {}) {
  const args = ['--home', home];
  if (!opts.browser) args.push('--no-browser');
  const proc = spawn(resolve(binary), args, {
    env: { ...(opts.env ?? process.env), HOME: home, SOFTPHONE_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stderr.on('data', (d) => { log += d; });
  const url = new Promise((res, rej) => {
    let buf = '';
    const timer = setTimeout(() => rej(new Error('no "Phone page:" line within 20 s; stderr:\n' + log)), 20000);
    proc.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(/Phone page: (http:\/\/\S+)/);
      if (m) { clearTimeout(timer); res(m[1]); }
    });
    proc.on('exit', (code) => rej(new Error('binary exited with ' + code + '; stderr:\n' + log)));
  });
  return { proc, url, log: () => log };
}

// stopPhone stops it with SIGINT (SIGKILL after 15 s) and gives its exit code.
export async function stopPhone(proc) {
  if (proc.exitCode !== null) return proc.exitCode;
  const done = new Promise((res) => proc.on('exit', (code, sig) => res(code ?? sig)));
  proc.kill('SIGINT');
  const t = setTimeout(() => proc.kill('SIGKILL'), 15000);
  const code = await done;
  clearTimeout(t);
  return code;
}
