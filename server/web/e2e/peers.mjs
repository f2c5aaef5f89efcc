// Real SIP peers for the day's path of the e2e walk: kamailio as registrar
// and proxy (the project's own config, internal/testpeer/testdata) and
// baresip as "bob", answering at once and playing a tone.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from 'node:net';

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

function run(cmd, args, log) {
  const fd = openSync(log, 'a');
  const p = spawn(cmd, args, { stdio: ['ignore', fd, fd] });
  return p;
}

export async function kamailio() {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-kam-'));
  const port = await freePort();
  const cfg = readFileSync(join(repo, 'internal/testpeer/testdata/kamailio.cfg'), 'utf8')
    .replaceAll('@PORT@', String(port)).replaceAll('@RUNDIR@', dir);
  writeFileSync(join(dir, 'kamailio.cfg'), cfg);
  const proc = run('kamailio', ['-f', join(dir, 'kamailio.cfg'), '-DD', '-E', '-Y', dir, '-m', '64', '-M', '8'], join(dir, 'kamailio.log'));
  await waitFor('kamailio', () => listening('udp', port) && listening('tcp', port));
  return { port, dir, stop: () => proc.kill('SIGKILL') };
}

// baresip registers user/pass at the registrar, answers at once and plays a
// tone of hz as its microphone. ctrl() sends a ctrl_tcp command.
export async function baresip({ user, pass, registrar, hz = 440 }) {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-bare-'));
  mkdirSync(join(dir, 'rec'));
  const tone = join(dir, 'tone.wav');
  execFileSync('sox', ['-n', '-r', '8000', '-c', '1', '-b', '16', tone, 'synth', '120', 'sine', String(hz), 'vol', '0.5']);
  const sip = await freePort(), ctrl = await freePort(), http = await freePort(), rtp = 20000 + 2 * Math.floor(Math.random() * 9000);
  writeFileSync(join(dir, 'config'), `poll_method\t\tepoll
sip_listen\t\t127.0.0.1:${sip}
net_interface\t\t127.0.0.1
dns_server\t\t127.0.0.1:53
call_local_timeout\t120
call_max_calls\t\t4
audio_player\t\taubridge,nil
audio_alert\t\taubridge,nil
audio_source\t\taufile,${tone}
rtp_ports\t\t${rtp}-${rtp + 39}
rtcp_mux\t\tno
jitter_buffer_delay\t5-10
statmode_default\toff
module_path\t\t/usr/lib/baresip/modules
module\t\t\tg711.so
module\t\t\taufile.so
module\t\t\taubridge.so
module\t\t\tsndfile.so
module_tmp\t\taccount.so
module_app\t\tmenu.so
module_app\t\tctrl_tcp.so
module_app\t\thttpd.so
ctrl_tcp_listen\t\t127.0.0.1:${ctrl}
http_listen\t\t127.0.0.1:${http}
snd_path\t\t${join(dir, 'rec')}
`);
  writeFileSync(join(dir, 'accounts'), `<sip:${user}@${registrar}>;audio_codecs=PCMU/8000/1,PCMA/8000/1;auth_pass=${pass};regint=300;answermode=auto\n`);
  const log = join(dir, 'baresip.log');
  const proc = run('baresip', ['-f', dir], log);
  await waitFor('baresip', () => listening('udp', sip) && listening('tcp', ctrl));
  await waitFor('baresip registration', () => readFileSync(log, 'utf8').includes('200 OK'));
  const command = (cmd, params = '') => new Promise((res, rej) => {
    const msg = JSON.stringify({ command: cmd, params, token: 't' });
    const c = connect(ctrl, '127.0.0.1', () => c.write(`${Buffer.byteLength(msg)}:${msg},`));
    let buf = '';
    c.setTimeout(5000, () => { c.destroy(); rej(new Error('baresip ctrl timeout')); });
    c.on('data', (d) => { buf += d; if (buf.includes('"response":true')) { c.end(); res(buf); } });
    c.on('error', rej);
  });
  return { dir, log: () => readFileSync(log, 'utf8'), ctrl: command, stop: () => proc.kill('SIGKILL') };
}
