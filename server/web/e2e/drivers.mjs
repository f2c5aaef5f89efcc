// The two browsers of the audio suites, as users have them: Debian's
// chromium without --allow-loopback-in-peer-connection (playwright-core)
// and Debian's firefox-esr with default prefs (puppeteer-core over
// WebDriver BiDi; playwright's Firefox needs its own build). Both get a
// fake 440 Hz microphone; Firefox an audio output (a private PulseAudio
// with a null sink: without one its AudioContext never runs).
//
// Only test switches are set: Chromium's fake capture device and file,
// Firefox's fake stream and its frequency, the permission granted as by a
// remembered "Allow" for the phone's origin (127.0.0.1) and refused for
// every other one (localhost: the page with a blocked microphone).
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// page wraps a playwright or puppeteer page in the few calls the suites use.
// In Chromium, eval goes through CDP without a user gesture: playwright's
// own evaluate counts as one, and the page would then never be held by the
// autoplay policy as a page nobody clicked is. Only click is a person's
// action.
function wrap(p, cdp) {
  const evaluate = cdp ? async (fn, arg) => {
    const r = await cdp.send('Runtime.evaluate', { expression: `(${fn})(${JSON.stringify(arg ?? null)})`,
      awaitPromise: true, returnByValue: true, userGesture: false });
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    return r.result.value;
  } : (fn, arg) => p.evaluate(fn, arg);
  return {
    raw: p,
    goto: (url) => p.goto(url),
    eval: evaluate,
    click: (sel) => p.click(sel),
    fill: (sel, v) => evaluate(([s, x]) => { const el = document.querySelector(s); el.value = x; el.dispatchEvent(new Event('input', { bubbles: true })); }, [sel, v]),
    text: (sel) => evaluate((s) => document.querySelector(s)?.textContent ?? null, sel),
    // until polls fn in the page until it is truthy (ms at most) and gives its value.
    async until(what, fn, arg, ms = 15000) {
      const end = Date.now() + ms;
      for (;;) {
        const v = await evaluate(fn, arg).catch(() => undefined);
        if (v) return v;
        if (Date.now() > end) throw new Error('timed out waiting for ' + what);
        await sleep(100);
      }
    },
    shot: (path) => p.screenshot({ path }).catch(() => {}),
    close: () => p.close(),
  };
}

// startPulse runs a private PulseAudio with a null sink "speaker". With
// loop, its monitor is also the default microphone ("mic", a remapped
// source): what the page plays comes back into its microphone, as from a
// laptop's speakers into its microphone (the echo test).
async function startPulse(dir, loop = false) {
  const sock = join(dir, 'native');
  const env = { ...process.env, XDG_RUNTIME_DIR: dir, HOME: dir };
  const pa = spawn('pulseaudio', ['-n', '--daemonize=no', '--exit-idle-time=-1', '--use-pid-file=no',
    '--log-target=file:' + join(dir, 'pulse.log'),
    `--load=module-native-protocol-unix auth-anonymous=1 socket=${sock}`,
    '--load=module-null-sink sink_name=speaker',
    ...(loop ? ['--load=module-remap-source master=speaker.monitor source_name=mic'] : [])], { env, stdio: 'ignore' });
  for (let i = 0; i < 100 && !existsSync(sock); i++) await sleep(50);
  if (!existsSync(sock)) {
    pa.kill('SIGKILL');
    throw new Error('pulseaudio did not start: ' + readFileSync(join(dir, 'pulse.log'), 'utf8').slice(-500));
  }
  // Short client buffers in the loop: the echo's delay stays within what a
  // canceller searches (PulseAudio's default may buffer up to 2 s).
  const penv = { ...env, PULSE_SERVER: 'unix:' + sock, ...(loop ? { PULSE_LATENCY_MSEC: '30' } : {}) };
  spawnSync('pactl', ['set-default-sink', 'speaker'], { env: penv });
  if (loop) spawnSync('pactl', ['set-default-source', 'mic'], { env: penv });
  return { pa, env: penv };
}

// launch starts the browser; origin is the phone's (granted the microphone).
// It gives { name, page(), blockedPage(), close() }: page() a tab in the
// granted profile, blockedPage() one whose microphone is blocked. With
// micWav null the browser uses its real devices on a private PulseAudio
// whose speaker loops back into the microphone (startPulse's loop).
export async function launch(name, origin, micWav) {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-' + name + '-'));
  const loop = micWav === null;
  if (name === 'chromium') {
    const pulse = loop ? await startPulse(dir, true) : null;
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update',
        '--disable-sync', '--no-first-run',
        ...(loop ? [] : ['--use-fake-device-for-media-stream', '--use-file-for-fake-audio-capture=' + micWav])],
      // playwright mutes headless Chromium; the loop needs its sound.
      ...(loop ? { ignoreDefaultArgs: ['--mute-audio'], env: pulse.env } : {}),
    });
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await ctx.grantPermissions(['microphone'], { origin });
    let blocked, strict;
    return {
      name,
      // strictPage is a tab of a second Chromium, logged in as the first,
      // whose autoplay policy is stricter than the default
      // (--autoplay-policy=user-gesture-required, as on Android): it
      // refuses to play the call's remote stream without a click.
      async strictPage() {
        strict = await chromium.launch({
          executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
          args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update',
            '--disable-sync', '--no-first-run', '--autoplay-policy=user-gesture-required',
            '--use-fake-device-for-media-stream', '--use-file-for-fake-audio-capture=' + micWav],
        });
        const sctx = await strict.newContext({ viewport: { width: 1280, height: 900 }, storageState: await ctx.storageState() });
        await sctx.grantPermissions(['microphone'], { origin });
        const p = await sctx.newPage();
        return wrap(p, await sctx.newCDPSession(p));
      },
      page: async () => { const p = await ctx.newPage(); return wrap(p, await ctx.newCDPSession(p)); },
      // A person's "Block" on the site's microphone permission (CDP; the
      // page then reads "denied" from navigator.permissions).
      async blockedPage(blockedOrigin) {
        blocked = await browser.newContext();
        const cdp = await browser.newBrowserCDPSession();
        const { browserContextIds } = await cdp.send('Target.getBrowserContexts');
        for (const id of browserContextIds) {
          await cdp.send('Browser.setPermission', { permission: { name: 'microphone' }, setting: 'denied', origin: blockedOrigin, browserContextId: id }).catch(() => {});
        }
        return wrap(await blocked.newPage());
      },
      close: async () => { await strict?.close().catch(() => {}); await browser.close().catch(() => {}); pulse?.pa.kill('SIGKILL'); rmSync(dir, { recursive: true, force: true }); },
    };
  }
  const pulse = await startPulse(dir, loop);
  const perm = join(dir, 'permissions');
  writeFileSync(perm, `origin\tmicrophone\t1\t${origin}\n`);
  // Headless Firefox ESR now and then dies with SIGSEGV while it starts
  // (CI 39: "Failed to launch the browser process: Code: 11", a minidump
  // written, before it had a page): Firefox's crash, not the phone's. A
  // launch that fails so is tried once more with a fresh profile; a second
  // failure fails the suite.
  let browser;
  for (let attempt = 1; ; attempt++) {
    const profile = join(dir, 'profile' + attempt);
    mkdirSync(profile);
    try {
      browser = await puppeteer.launch({
        browser: 'firefox', executablePath: process.env.FIREFOX ?? '/usr/bin/firefox-esr', headless: true,
        userDataDir: profile, env: pulse.env, protocolTimeout: 60000,
        extraPrefsFirefox: {
          'permissions.manager.defaultsUrl': 'file://' + perm, // the remembered "Allow" for the phone's origin
          'permissions.default.microphone': 2, // every other origin: blocked (the blocked page)
          ...(loop ? {} : {
            'media.navigator.streams.fake': true, // test-only: a synthetic microphone ...
            'media.navigator.audio.fake_frequency': 440, // ... playing 440 Hz
          }),
        },
      });
      break;
    } catch (e) {
      if (attempt >= 2 || !String(e?.message).includes('Failed to launch the browser process')) throw e;
      console.log(`note ${name}: Firefox did not start (${String(e.message).split('\n')[0]}); trying once more`);
    }
  }
  return {
    name,
    page: async () => wrap(await browser.newPage()),
    blockedPage: async () => wrap(await browser.newPage()),
    close: async () => {
      await browser.close().catch(() => {});
      pulse.pa.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
