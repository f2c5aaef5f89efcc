// Audio by content for the e2e audio walk (audio.mjs): WAV files read while
// they grow, tone amplitudes by a single-bin DFT (Goertzel), the dominant
// frequency, and baresip peers with a chosen source and codecs.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, openSync, readdirSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './peers.mjs';

// readWAV reads a PCM 16-bit WAV, also one still being written (the data
// chunk runs to the end of the file). from is a sample-frame index.
export function readWAV(path, from = 0) {
  const b = readFileSync(path);
  let off = 12, rate = 0, channels = 1, data = -1;
  while (off + 8 <= b.length) {
    const id = b.toString('ascii', off, off + 4), size = b.readUInt32LE(off + 4);
    if (id === 'fmt ') { channels = b.readUInt16LE(off + 10); rate = b.readUInt32LE(off + 12); }
    if (id === 'data') { data = off + 8; break; }
    off += 8 + size + (size & 1);
  }
  if (data < 0) return { rate, channels, frames: 0, ch: [[]] };
  const frames = Math.floor((b.length - data) / (2 * channels));
  const ch = Array.from({ length: channels }, () => new Float32Array(Math.max(0, frames - from)));
  for (let i = from; i < frames; i++) {
    for (let c = 0; c < channels; c++) ch[c][i - from] = b.readInt16LE(data + 2 * (i * channels + c)) / 32768;
  }
  return { rate, channels, frames, ch };
}

// amp is the amplitude (0..1 of full scale) of the tone hz in x.
export function amp(x, rate, hz) {
  let re = 0, im = 0;
  const w = 2 * Math.PI * hz / rate;
  for (let i = 0; i < x.length; i++) { re += x[i] * Math.cos(w * i); im += x[i] * Math.sin(w * i); }
  return x.length ? 2 * Math.hypot(re, im) / x.length : 0;
}

export function rms(x) {
  let s = 0;
  for (const v of x) s += v * v;
  return x.length ? Math.sqrt(s / x.length) : 0;
}

// dominant is the strongest frequency between 100 and 3000 Hz (5 Hz steps,
// then 1 Hz around the best) and its amplitude.
export function dominant(x, rate) {
  x = x.length > 16384 ? x.subarray(x.length - 16384) : x;
  let best = { hz: 0, amp: 0 };
  for (let f = 100; f <= 3000; f += 5) { const a = amp(x, rate, f); if (a > best.amp) best = { hz: f, amp: a }; }
  for (let f = best.hz - 5; f <= best.hz + 5; f++) { const a = amp(x, rate, f); if (a > best.amp) best = { hz: f, amp: a }; }
  return best;
}

// tone sums up a stretch of audio: dominant frequency, its amplitude, RMS
// and the amplitude of each of the given tones.
export function tone(x, rate, tones = []) {
  const d = dominant(x, rate);
  const y = x.length > 16384 ? x.subarray(x.length - 16384) : x;
  return { hz: d.hz, amp: +d.amp.toFixed(3), rms: +rms(x).toFixed(3), secs: +(x.length / rate).toFixed(2),
    at: Object.fromEntries(tones.map((f) => [f, +amp(y, rate, f).toFixed(3)])) };
}

// wav writes 16-bit mono audio with sox: a sine of hz for secs.
export function sine(path, hz, rate, secs, channels = 1) {
  execFileSync('sox', ['-n', '-r', String(rate), '-c', String(channels), '-b', '16', path, 'synth', String(secs), 'sine', String(hz), 'vol', '0.5']);
}

// rtpBlock gives each baresip of this run its own 40 RTP ports, in blocks
// of 40 between 10000 and 16383: below the phone's default RTP range
// (sip.rtp_port_min 16384) and the kernel's ephemeral ports (32768 up), so a
// capture of one peer's ports (capture) never takes in packets to another
// peer or to the phone. Random ranges used to overlap now and then (CI run
// 25: the held bob's capture held carol's stream too, the page's 440 Hz).
const rtpTaken = new Set();
function rtpBlock() {
  const blocks = Math.floor((16384 - 10000) / 40);
  if (rtpTaken.size >= blocks) throw new Error('no RTP block left for another baresip');
  for (;;) {
    const b = Math.floor(Math.random() * blocks);
    if (!rtpTaken.has(b)) { rtpTaken.add(b); return 10000 + 40 * b; }
  }
}

// baresip registers user/pass at the registrar, answers at once, plays
// source or a sine of hz, and records what it hears in dir/rec/*dec.wav.
// codecs are its audio_codecs. baresip 1.0 has no resampler here: its source
// must have the codec's rate and channels (G.722 16 kHz mono, Opus 48 kHz
// stereo), so one instance serves codecs of one rate.
export async function baresip({ user, pass, registrar, hz = 1000, source, codecs = ['PCMU/8000/1', 'PCMA/8000/1'] }) {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-audio-bare-'));
  mkdirSync(join(dir, 'rec'));
  const [, rate = '8000', ch = '1'] = codecs[0].split('/');
  if (!source) { source = join(dir, 'tone.wav'); sine(source, hz, Number(rate), 120, Number(ch)); }
  const sip = await freePort(), ctrl = await freePort(), http = await freePort(), rtp = rtpBlock();
  writeFileSync(join(dir, 'config'), `poll_method\t\tepoll
sip_listen\t\t127.0.0.1:${sip}
net_interface\t\t127.0.0.1
dns_server\t\t127.0.0.1:53
call_local_timeout\t120
call_max_calls\t\t4
audio_player\t\taubridge,nil
audio_alert\t\taubridge,nil
audio_source\t\taufile,${source}
rtp_ports\t\t${rtp}-${rtp + 39}
rtcp_mux\t\tno
jitter_buffer_delay\t5-10
statmode_default\toff
module_path\t\t/usr/lib/baresip/modules
module\t\t\tg711.so
module\t\t\tg722.so
module\t\t\topus.so
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
  writeFileSync(join(dir, 'accounts'), `<sip:${user}@${registrar}>;audio_codecs=${codecs.join(',')};auth_pass=${pass};regint=300;answermode=auto\n`);
  const logPath = join(dir, 'baresip.log');
  const fd = openSync(logPath, 'a');
  const proc = spawn('baresip', ['-f', dir], { stdio: ['ignore', fd, fd] });
  const log = () => readFileSync(logPath, 'utf8');
  const end = Date.now() + 10000;
  while (!log().includes('200 OK')) {
    if (Date.now() > end) throw new Error(`baresip ${user} did not register:\n${log().slice(-1500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const ctrlCmd = (cmd, params = '') => new Promise((res, rej) => {
    const msg = JSON.stringify({ command: cmd, params, token: 't' });
    const c = connect(ctrl, '127.0.0.1', () => c.write(`${Buffer.byteLength(msg)}:${msg},`));
    let buf = '';
    c.setTimeout(5000, () => { c.destroy(); rej(new Error('baresip ctrl timeout')); });
    c.on('data', (d) => { buf += d; if (buf.includes('"response":true')) { c.end(); res(buf); } });
    c.on('error', rej);
  });
  // newest is the newest recording of what baresip hears (its decoder side).
  const newest = () => {
    const files = readdirSync(join(dir, 'rec')).filter((f) => f.endsWith('dec.wav')).map((f) => join(dir, 'rec', f));
    files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
    return files[0];
  };
  // mark is where baresip's newest recording ends now; heard(mark) is what
  // it heard since then (an empty stretch when no packet came).
  const mark = () => { const f = newest(); return { f, at: f ? readWAV(f).frames : 0 }; };
  const heard = (m, tones = []) => {
    const f = newest();
    if (!f) return { hz: 0, amp: 0, rms: 0, secs: 0, at: {} };
    const w = readWAV(f, m && m.f === f ? m.at : 0);
    return tone(w.ch[0], w.rate, tones);
  };
  // quit unregisters (so the registrar forgets this contact), then ends it.
  const quit = async () => {
    await ctrlCmd('quit').catch(() => {});
    await new Promise((r) => setTimeout(r, 500));
    proc.kill('SIGKILL');
  };
  return { dir, user, rtp: [rtp, rtp + 39], log, ctrl: ctrlCmd, newest, mark, heard, quit, stop: () => proc.kill('SIGKILL') };
}

// capture records the RTP sent to ports [from, to] on loopback with tshark;
// stop() ends it and answers the audio by time: audio(t0, t1) is the decoded
// G.711 sent in that stretch (Date.now() times), for what reaches a peer
// whose own recording cannot be trusted (baresip 1.0 stops its decoder dump
// at a re-INVITE).
export async function capture(dir, [from, to]) {
  const pcap = join(dir, `rtp-${from}.pcap`);
  const proc = spawn('tshark', ['-q', '-i', 'lo', '-f', `udp dst portrange ${from}-${to}`, '-w', pcap], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  await new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error('tshark did not start within 30 s: ' + err)), 30000); // loading its dissectors is slow on a busy machine
    proc.stderr.on('data', (d) => { err += d; if (err.includes('Capturing on')) { clearTimeout(t); res(); } });
  });
  return {
    async stop() {
      await new Promise((r) => setTimeout(r, 300));
      const done = new Promise((r) => proc.on('exit', r));
      proc.kill('SIGINT');
      await done;
      const txt = execFileSync('tshark', ['-r', pcap, '--enable-heuristic', 'rtp_udp', '-Y', 'rtp', '-T', 'fields',
        '-e', 'frame.time_epoch', '-e', 'rtp.p_type', '-e', 'rtp.payload', '-e', 'udp.dstport'], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
      const pkts = txt.trim().split('\n').filter(Boolean).map((l) => { const [t, pt, p, port] = l.split('\t'); return { t: Number(t) * 1000, pt: Number(pt), p: p ?? '', port }; });
      return {
        packets: pkts.length,
        // about says what was captured when a check fails: packets by
        // destination port and payload type (all, and between t0 and t1),
        // first and last time.
        about(t0, t1) {
          const by = {}, within = {};
          for (const k of pkts) {
            const key = `${k.port}/${k.pt}`;
            by[key] = (by[key] ?? 0) + 1;
            if (k.t >= t0 && k.t <= t1) within[key] = (within[key] ?? 0) + 1;
          }
          return { packets: pkts.length, by, within, first: pkts[0]?.t, last: pkts.at(-1)?.t, t0, t1 };
        },
        audio(t0, t1) {
          const out = [];
          for (const k of pkts) {
            if (k.t < t0 || k.t > t1 || (k.pt !== 0 && k.pt !== 8)) continue;
            for (const b of Buffer.from(k.p.replace(/:/g, ''), 'hex')) out.push(k.pt === 0 ? ulaw(b) : alaw(b));
          }
          return Float32Array.from(out);
        },
      };
    },
  };
}

function ulaw(u) {
  u = ~u & 0xff;
  let t = ((u & 0x0f) << 3) + 0x84;
  t <<= (u & 0x70) >> 4;
  return ((u & 0x80) ? 0x84 - t : t - 0x84) / 32768;
}

function alaw(a) {
  a ^= 0x55;
  let t = (a & 0x0f) << 4;
  const seg = (a & 0x70) >> 4;
  if (seg === 0) t += 8; else if (seg === 1) t += 0x108; else { t += 0x108; t <<= seg - 1; }
  return ((a & 0x80) ? t : -t) / 32768;
}
