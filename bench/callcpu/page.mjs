// The phone page of bench/callcpu in headless Chromium (playwright-core,
// Debian's /usr/bin/chromium) with a 440 Hz fake microphone:
//
//   node bench/callcpu/page.mjs <phone page URL> <mic.wav>
//
// Prints "connected" once the page holds the audio (its WebRTC connection
// comes up with each call).
// Each line "stats" on stdin prints one JSON line with the page's audio RTP
// counters (inbound and outbound packets, codecs); end of stdin closes the
// browser and exits.
import { chromium } from 'playwright-core';
import { createInterface } from 'node:readline';

const [url, mic] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--allow-loopback-in-peer-connection', '--autoplay-policy=no-user-gesture-required',
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

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (line.trim() === 'stats') console.log(JSON.stringify(await stats()));
}
await browser.close();
