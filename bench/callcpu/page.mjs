// The phone page of bench/callcpu in headless Chromium (playwright-core,
// Debian's /usr/bin/chromium) with a 440 Hz fake microphone:
//
//   node bench/callcpu/page.mjs <phone page URL> <mic.wav>
//
// Chromium keeps its own autoplay policy, as people have it: the page
// resumes its AudioContext once the microphone is open (static/src/rtc.ts).
// Prints "connected" once the page holds the audio (its WebRTC connection
// comes up with each call).
// Each line "stats" on stdin prints one JSON line with the page's audio RTP
// counters (inbound and outbound packets, codecs); each line "click NUMBER"
// dials NUMBER with a click on Call and prints {"mic": ms, "live": ms}: from
// the click to a live microphone (getUserMedia done) and to the page's
// audio flowing at the phone (the header's data-live); end of stdin closes
// the browser and exits.
import { chromium } from 'playwright-core';
import { createInterface } from 'node:readline';

const [url, mic] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--allow-loopback-in-peer-connection',
    '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', '--use-file-for-fake-audio-capture=' + mic],
});
const ctx = await browser.newContext();
await ctx.grantPermissions(['microphone'], { origin: new URL(url).origin });
const page = await ctx.newPage();
await page.goto(url);
await page.waitForFunction(() => document.querySelector('#audio-holder')?.dataset.holder === window.softphone?.tab && window.softphone?.audio?.state === 'ready', null, { timeout: 20000 });
console.log('connected');

async function stats() {
  return page.evaluate(async () => {
    const out = { in: 0, out: 0, codecIn: '', codecOut: '' };
    const pc = window.softphone.audio.pc;
    if (!pc) return out; // no call: no connection
    const st = await pc.getStats();
    st.forEach((r) => {
      if (r.kind !== 'audio') return;
      if (r.type === 'inbound-rtp') { out.in += r.packetsReceived; out.codecIn = st.get(r.codecId)?.mimeType ?? ''; }
      if (r.type === 'outbound-rtp') { out.out += r.packetsSent; out.codecOut = st.get(r.codecId)?.mimeType ?? ''; }
    });
    return out;
  });
}

async function click(number) {
  await page.fill('#number', number);
  await page.click('#dial-form button[type=submit]');
  return page.evaluate(async () => {
    const a = window.softphone.audio;
    const t0 = a.clickAt;
    for (let i = 0; i < 2000 && !(a.micAt > t0); i++) await new Promise((r) => setTimeout(r, 2));
    const mic = a.micAt - t0;
    for (let i = 0; i < 2000 && document.querySelector('#audio-holder')?.dataset.live !== 'true'; i++) await new Promise((r) => setTimeout(r, 2));
    return { mic: Math.round(mic), live: Math.round(performance.now() - t0) };
  });
}

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  const [cmd, arg] = line.trim().split(/\s+/);
  if (cmd === 'stats') console.log(JSON.stringify(await stats()));
  if (cmd === 'click') console.log(JSON.stringify(await click(arg)));
}
await browser.close();
