// The phone in the browser: audio over WebRTC to the phone, ringing and
// notifications, hotkeys, the dial pad and the small behaviours of the pages.
// htmx renders and updates everything else (the calls list arrives over SSE).
import { csrf, post, tabID, $, $$, clock, savedAudio } from './util';
import { Audio } from './rtc';
import { Ringer, act } from './ring';
import { installHotkeys } from './keys';
import { installCallbar, keepFocus, padHint, dialpadKey, showRinging } from './callbar';
import { installLink } from './link';

declare global {
  interface Window { htmx?: { config: Record<string, unknown> }; softphone?: unknown }
}

const settings = savedAudio();
const audio = new Audio(settings);
const ringer = new Ringer();
ringer.device = settings.ringer;
ringer.volume = settings.ringer_volume;

// htmx: show the messages of failed actions and invalid forms (4xx bodies).
function configureHtmx(): void {
  const h = window.htmx;
  if (!h) return;
  h.config.responseHandling = [
    { code: '204', swap: false },
    { code: '[23]..', swap: true },
    // 413 and 500 carry the words in #flash (render.go fail); other
    // errors are said by link.ts.
    { code: '(400|404|409|413|422|500|503)', swap: true, error: false },
    { code: '[45]..', swap: false, error: true },
  ];
  h.config.scrollIntoViewOnBoost = false;
}

// refresh runs after every change of the page (SSE swap, boosted navigation).
function refresh(): void {
  ringer.update();
  audioSign();
  tick();
  keepFocus();
  padHint();
  showRinging();
}

// needsAudio: a call is in progress that is not just ringing here.
function needsAudio(): boolean {
  return $$('#calls [data-call-id]').some((c) => c.dataset.state !== 'ringing-in');
}

// audioWords says, in the page's language, what holds for this tab's audio,
// and whether a call placed here would be heard here (ok).
function audioWords(): { text: string; ok: boolean } {
  const w = $('#audio-words')?.dataset ?? {};
  const h = $('#audio-holder')?.dataset ?? {};
  const holder = h.holder ?? '';
  switch (audio.state) {
    case 'mic-blocked': {
      const ua = navigator.userAgent;
      return { text: (/Firefox\//.test(ua) ? w.blockedFirefox : /Chrom(e|ium)\//.test(ua) ? w.blockedChrome : w.blocked) ?? '', ok: false };
    }
    case 'no-mic': return { text: w.nomic ?? '', ok: false };
    case 'failed': return { text: w.failed ?? '', ok: false };
  }
  if (holder === tabID()) {
    const key = audio.state === 'connecting' ? 'connecting' : h.live === 'true' ? 'live' : 'here';
    return { text: w[key] ?? '', ok: true };
  }
  if (!holder && document.hasFocus() && performance.now() < retakeBound) return { text: w.connecting ?? '', ok: true };
  return { text: (holder ? w.other : w.none) ?? '', ok: false };
}

// A page in front takes the audio with its audio socket's first report
// (rtc.ts, socket) or with its focus. On a reload the old page's socket
// closes first, and for a moment no tab holds the audio: the header
// offered "Use this tab" (a row more at 360 px) and took it back a moment
// later. So while no tab holds the audio in the first retakeMs of a page
// in front, the header says this tab's audio is connecting, which it is;
// when another tab holds it, the header says so, and past retakeMs (the
// socket never reported) the header says no tab holds it.
const retakeMs = 10000;
const retakeBound = performance.now() + retakeMs;

// audioSign updates the header and the call cards, and opens or closes
// this tab's audio as the calls need it.
//
// Holding the audio starts it only while this tab is ready: a start that
// failed (the microphone refused, missing or busy) turns the tab blocked,
// no-mic or failed at once, but the header still names this tab the
// holder until the phone hears of it; starting again then failed again at
// once, and the tab spun (about 40 microphone requests a second, each
// flipping its state on the phone, whose pages were told every time) for
// as long as the call lasted, never settling on the words that say why.
// "Use this tab" (take) looks again.
function audioSign(): void {
  const mine = $('#audio-holder')?.dataset.holder === tabID() && audio.state === 'ready';
  const calls = needsAudio();
  if (calls) placing = 0;
  audio.need((calls || performance.now() < placing) && (mine || audio.state === 'connecting' || audio.state === 'live'));
  const { text, ok } = audioWords();
  const el = $('#audio-text');
  if (el) {
    setText(el, text);
    const cls = ok ? 'ok' : 'warn';
    if (el.className !== cls) el.className = cls;
  }
  const top = $('#take-audio-top');
  if (top && top.hidden !== ok) top.hidden = ok;
  for (const n of $$('#calls .audio-note')) {
    setText(n, ok ? '' : text);
    if (n.hidden !== ok) n.hidden = ok;
  }
}

// placing bounds (performance.now()) the wait for the call that a click on
// Call or Answer started the audio for. Until its card comes (or shows it
// answered) no call needs the audio, and the page's next change (the
// form's own request) stopped the start, to open the microphone again when
// the card came: two requests, the browser's recording sign flashing, a
// slower start. A dial refused ends the wait at once; one that never shows
// a call ends at the bound.
let placing = 0;
const placeMs = 10000;

function place(): void {
  placing = performance.now() + placeMs;
  setTimeout(audioSign, placeMs + 1);
  void audio.start();
}

// guardDial stops a call from this page that would have no audio here:
// the flash says why and offers "Use this tab" and "Call anyway". A call
// that goes ahead opens the microphone at once (click to live microphone).
function guardDial(): void {
  let anyway = false;
  document.addEventListener('submit', (e) => {
    const form = e.target as HTMLFormElement;
    if (form.id !== 'dial-form') return;
    audio.clickAt = performance.now();
    const { text, ok } = audioWords();
    if (ok || anyway) {
      anyway = false;
      if (ok) place();
      return;
    }
    e.preventDefault();
    e.stopPropagation();
    const w = $('#audio-words')?.dataset ?? {};
    const f = $('#flash');
    if (!f) return;
    f.replaceChildren(document.createTextNode((w.noaudio ?? '') + ' ' + text + ' '));
    const take = document.createElement('button');
    take.type = 'button';
    take.dataset.takeAudio = '';
    take.textContent = $('#take-audio-top')?.textContent ?? '';
    const go = document.createElement('button');
    go.type = 'button';
    go.id = 'dial-anyway';
    go.textContent = w.anyway ?? '';
    go.addEventListener('click', () => { anyway = true; f.replaceChildren(); form.requestSubmit(); });
    f.append(take, ' ', go);
  }, true);
  // Answering opens the microphone at once too.
  document.addEventListener('click', (e) => {
    const b = (e.target as HTMLElement).closest<HTMLElement>('[data-action="answer"]');
    if (b && audioWords().ok) { audio.clickAt = performance.now(); place(); }
  }, true);
  document.addEventListener('htmx:afterRequest', (e) => {
    const d = (e as CustomEvent<{ elt?: HTMLElement; successful?: boolean }>).detail;
    if (d?.elt?.id === 'dial-form' && !d.successful) { placing = 0; audioSign(); }
  });
}

// setText changes an element's text only when it differs: refresh runs from
// a MutationObserver, and every write is a mutation.
function setText(el: HTMLElement, s: string): void {
  if (el.textContent !== s) el.textContent = s;
}

// tick updates the call timers (time in the current state, or talk time).
function tick(): void {
  const now = Date.now();
  for (const t of $$('time.timer')) {
    const since = Number(t.dataset.answered || 0) || Number(t.dataset.since || 0);
    setText(t, since ? clock((now - since) / 1000) : '');
  }
}

function dialpad(): void {
  document.addEventListener('click', (e) => {
    const el = (e.target as HTMLElement).closest<HTMLElement>('[data-key], [data-clear], #redial, #mic-mute, #ring-test, [data-take-audio], #notify-enable, #links-enable');
    if (!el) return;
    const num = $('#number') as HTMLInputElement | null;
    if (el.dataset.key && el.closest('#dial-form') && dialpadKey(el.dataset.key)) {
      // During a connected call the pad sends tones (callbar.ts); the focus stays on the key.
    } else if (el.dataset.key && num && el.closest('#dial-form')) {
      num.value += el.dataset.key;
      num.focus();
    } else if (el.dataset.clear && num) {
      num.value = num.value.slice(0, -1);
      num.focus();
    } else if (el.id === 'redial' && num && el.dataset.redial) {
      num.value = el.dataset.redial;
      (num.form as HTMLFormElement).requestSubmit();
    } else if (el.id === 'mic-mute') {
      audio.setMuted(!audio.muted);
      el.setAttribute('aria-pressed', String(audio.muted));
    } else if (el.id === 'ring-test') {
      ringer.test();
    } else if (el.dataset.takeAudio !== undefined) {
      void audio.take();
    } else if (el.id === 'notify-enable') {
      void Notification.requestPermission();
    } else if (el.id === 'links-enable') {
      for (const scheme of ['tel', 'sip']) {
        try { navigator.registerProtocolHandler(scheme, location.origin + '/dial?uri=%s'); } catch (err) { console.warn(err); }
      }
    }
  });
}

// devices fills the device lists and saves a choice in the settings.
async function devices(): Promise<void> {
  const sels = $$('select[data-device]') as HTMLSelectElement[];
  if (sels.length === 0 || !navigator.mediaDevices?.enumerateDevices) return;
  const list = await navigator.mediaDevices.enumerateDevices();
  for (const sel of sels) {
    const kind = sel.dataset.device as 'microphone' | 'speaker' | 'ringer';
    const want = kind === 'microphone' ? 'audioinput' : 'audiooutput';
    const chosen = settings[kind];
    sel.length = 1;
    for (const d of list.filter((d) => d.kind === want && d.deviceId !== 'default')) {
      sel.add(new Option(d.label || d.deviceId.slice(0, 8), d.deviceId, false, d.deviceId === chosen));
    }
  }
}

function audioControls(): void {
  document.addEventListener('change', (e) => {
    const el = e.target as HTMLInputElement | HTMLSelectElement;
    const kind = el.dataset.device as 'microphone' | 'speaker' | 'ringer' | undefined;
    if (kind) {
      settings[kind] = el.value;
      if (kind === 'microphone') void audio.switchMic();
      if (kind === 'speaker') void audio.applySpeaker();
      if (kind === 'ringer') ringer.device = el.value;
      void post('/audio', { key: kind, value: el.value });
    } else if (el.dataset.volume) {
      const v = Number(el.value);
      audio.setVolume(el.dataset.volume, v);
      if (el.dataset.volume === 'ringer_volume') ringer.volume = v;
      void post('/audio', { key: el.dataset.volume, value: el.value });
    } else if (el.id === 'theme-select') {
      document.documentElement.dataset.theme = el.value;
      void post('/appearance/theme', { theme: el.value });
    } else {
      return;
    }
    localStorage.setItem('softphone-audio', JSON.stringify(settings));
  });
}

function start(): void {
  configureHtmx();
  installLink();
  document.body.dataset.incoming = document.body.dataset.incoming ?? 'Incoming call';
  installHotkeys();
  installCallbar();
  dialpad();
  audioControls();
  guardDial();
  new MutationObserver(refresh).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-state', 'data-holder', 'data-live'] });
  setInterval(tick, 1000);
  audio.onchange = refresh;
  refresh();
  setTimeout(refresh, retakeMs); // past retakeBound: the header's words without "connecting"
  void audio.open().then(() => devices());
  window.addEventListener('focus', () => void post('/webrtc/focus', { tab: tabID() }).catch(() => undefined));
  // The bridge drops the connection this page made at once instead of
  // waiting for ICE to time out; only that one (audio.conn): a reloaded
  // page keeps its tab id and may have connected before this arrives.
  window.addEventListener('pagehide', () => {
    if (audio.conn) navigator.sendBeacon('/webrtc/close', new URLSearchParams({ tab: tabID(), conn: audio.conn, csrf: csrf() }));
  });
  document.addEventListener('htmx:afterSettle', () => void devices());
  // A new action clears the message of the last one that failed. The dial
  // field's suggestions are no action: their request, 150 ms after the last
  // key, wiped the dial guard's "Call anyway" shown by a quick click on Call.
  document.addEventListener('htmx:beforeRequest', (e) => {
    if ((e as CustomEvent).detail?.elt?.id === 'number') return;
    const f = $('#flash'); if (f) setText(f, '');
  });
  // After a call goes out (HX-Trigger "dialed"), Redial offers that number.
  document.body.addEventListener('dialed', () => {
    const num = $('#number') as HTMLInputElement | null;
    const btn = $('#redial') as HTMLButtonElement | null;
    if (num && btn && num.value.trim()) { btn.dataset.redial = num.value.trim(); btn.disabled = false; }
  });
  // The header's "Click to hear the call" also lets a ring held by the autoplay policy sound.
  document.addEventListener('click', (e) => {
    if ((e.target as HTMLElement | null)?.closest?.('#audio-play')) void ringer.unhold();
  });
  // A click anywhere lets audio start (autoplay rules) and asks for notifications once.
  document.addEventListener('pointerdown', () => {
    void audio.ctx?.resume();
    if ('Notification' in window && Notification.permission === 'default') void Notification.requestPermission();
  }, { once: true });
  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => undefined);
    navigator.serviceWorker.addEventListener('message', (e) => {
      const m = e.data as { type?: string; action?: string; call?: string };
      if (m?.type === 'softphone-notification' && m.call && (m.action === 'answer' || m.action === 'decline')) act(m.action, m.call);
    });
  }
  window.softphone = { audio, ringer, tab: tabID() };
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
