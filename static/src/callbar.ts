// The live-call bar (issue 16): pinned to the bottom of the window on every
// page (layout.templ, app.css). Here: its height reserved below the content,
// the morphing swap told what to leave alone, the focus kept where the person
// was, and the digits of the keyboard and the dial pad sent as DTMF during a
// call (POST /calls/{id}/dtmf; the phone sends them as RFC 4733 events, or
// SIP INFO when the far end did not offer telephone-event).
import { $, $$, csrf } from './util';

declare global {
  interface Window {
    Idiomorph?: { defaults: { callbacks: { beforeAttributeUpdated: (attr: string, el: Element, kind: 'update' | 'remove') => boolean | void } } };
  }
}

// DTMF digits a keyboard can type (RFC 4733 events 0-11).
const DIGITS = '0123456789*#';

// morphDefaults: the server renders every <details> closed and every field
// empty; a morph would close the keypad the person opened, wipe a transfer
// target being typed and reset the call chosen for an attended transfer.
// Those are the person's, not the server's.
function morphDefaults(): void {
  const im = window.Idiomorph;
  if (!im) return;
  im.defaults.callbacks.beforeAttributeUpdated = (attr, el) => {
    if (attr === 'open' && el.tagName === 'DETAILS') return false;
    if (attr === 'value' && el.hasAttribute('data-keep-value')) return false;
    if (attr === 'selected' && el.parentElement?.hasAttribute('data-keep-value')) return false;
    return true;
  };
}

// reserve keeps the bar's height free below the page's content (padding at
// the end of .app): the bar overlays nothing the person needs, and since only
// space below the content grows, nothing above it moves when a call starts.
let sizer: ResizeObserver | null = null;
let observed: Element | null = null;

function reserve(): void {
  const bar = $('#live');
  if (!bar || bar === observed || !('ResizeObserver' in window)) return;
  const set = (): void => {
    const h = observed ? Math.ceil(observed.getBoundingClientRect().height) : 0;
    const v = h + 'px';
    if (document.documentElement.style.getPropertyValue('--callbar-h') !== v) document.documentElement.style.setProperty('--callbar-h', v);
  };
  sizer ??= new ResizeObserver(set);
  if (observed) sizer.unobserve(observed);
  observed = bar;
  sizer.observe(bar);
  set();
}

// Focus: where it was in the bar (element id and call id), so it can be put
// back when an update removed that element (Answer is gone once answered,
// the call is gone once hung up).
let was: { id: string; call: string } | null = null;

function trackFocus(): void {
  document.addEventListener('focusin', (e) => {
    const t = e.target as HTMLElement;
    if (t.closest?.('#calls')) was = { id: t.id, call: t.closest<HTMLElement>('[data-call-id]')?.dataset.callId ?? '' };
    else was = null;
  });
  // A click outside the bar is the person leaving it, even on nothing focusable.
  document.addEventListener('pointerdown', (e) => {
    if (!(e.target as HTMLElement)?.closest?.('#calls')) was = null;
  }, true);
}

// keepFocus runs after every change of the page. Only when the focus was in
// the bar and fell to <body> because its element left does it move: to the
// same element again, else to that call's card, else to another call's
// card, else to the number field (phone page), else to the main content.
export function keepFocus(): void {
  if (!was) return;
  const active = document.activeElement;
  if (active && active !== document.body && active.isConnected) return;
  const prev = was.id ? document.getElementById(was.id) : null;
  const next = (prev && visible(prev) ? prev : null) ??
    (was.call ? document.getElementById('call-' + was.call) : null) ??
    $('#calls [data-call-id]') ?? $('#number') ?? $('#main');
  if (!next) return;
  next.focus({ preventScroll: true });
  if (!next.closest('#calls')) was = null;
}

function visible(el: HTMLElement): boolean {
  return !el.closest('[hidden]') && el.getClientRects().length > 0;
}

// connectedCall is the call DTMF goes to: the one whose card holds the focus
// when it is connected, else the call that is active (or in the conference).
export function connectedCall(from?: Element | null): HTMLElement | null {
  const own = from?.closest?.<HTMLElement>('#calls [data-call-id]');
  if (own && (own.dataset.state === 'active' || own.dataset.state === 'conference')) return own;
  return $('#calls [data-call-id][data-state="active"]') ?? $('#calls [data-call-id][data-state="conference"]');
}

// Digits go out one request at a time, in the order typed.
let queue: Promise<void> = Promise.resolve();

export function sendDTMF(call: HTMLElement, digits: string): void {
  const id = call.dataset.callId ?? '';
  queue = queue.then(async () => {
    const res = await fetch('/calls/' + encodeURIComponent(id) + '/dtmf', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-CSRF-Token': csrf() },
      body: new URLSearchParams({ digits }),
    });
    // Beside the bar, where the person is looking (#flash may be scrolled away).
    const f = $('#callbar-msg');
    if (!res.ok && f) f.textContent = (await res.text()).trim();
  }).catch(() => undefined);
}

// typing: the key goes into a field, not to the call.
function typing(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  return !!el?.closest?.('input, textarea, select, [contenteditable=""], [contenteditable="true"]');
}

// dtmfKeys: digits, * and # typed anywhere but in a field go to the
// connected call. Keys with Ctrl, Alt or Meta stay the hotkeys' (keys.ts).
function dtmfKeys(): void {
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.altKey || e.metaKey || e.repeat || e.key.length !== 1 || !DIGITS.includes(e.key)) return;
    if (typing(e.target)) return;
    const call = connectedCall(e.target as Element);
    if (!call) return;
    e.preventDefault();
    sendDTMF(call, e.key);
  });
}

// showRinging brings a call that starts ringing into view inside the bar:
// with a call up and its keypad open the bar may be full (it scrolls within
// 75% of the window), and a second call would ring out of sight below.
const rung = new Set<string>();

export function showRinging(): void {
  for (const c of $$('#calls [data-call-id][data-state="ringing-in"]')) {
    const id = c.dataset.callId ?? '';
    if (rung.has(id)) continue;
    rung.add(id);
    c.scrollIntoView({ block: 'nearest' });
  }
  if (rung.size > 64) rung.clear();
}

// padHint says on the phone page that the dial pad sends tones while a call
// is connected (the hint is in the page, hidden until then).
export function padHint(): void {
  const hint = $('#dialpad-dtmf');
  if (!hint) return;
  const off = !connectedCall();
  if (hint.hidden !== off) hint.hidden = off;
}

// currentAction makes a button post what it shows now. An update morphs a
// button in place (Mute becomes Unmute: the same element, a new hx-post),
// but htmx reads hx-post only when it processes the element again, after
// the swap's settle delay (20 ms); a press inside that window posted the
// old action, so Unmute muted again and the call stayed muted (CI run 25).
function currentAction(): void {
  document.addEventListener('htmx:configRequest', (e) => {
    const d = (e as CustomEvent).detail as { elt?: Element; verb?: string; path?: string } | undefined;
    const now = d?.elt?.getAttribute?.('hx-' + (d.verb ?? ''));
    if (d && now && now !== d.path) d.path = now;
  });
}

export function installCallbar(): void {
  morphDefaults();
  reserve();
  trackFocus();
  dtmfKeys();
  // A new action of the bar clears the words of the last one that failed.
  document.addEventListener('htmx:beforeRequest', (e) => {
    const elt = (e as CustomEvent).detail?.elt as Element | undefined;
    const m = $('#callbar-msg');
    if (m && elt?.closest?.('#live')) m.textContent = '';
  });
  currentAction();
  // A boosted navigation brings a new bar: observe it too.
  document.addEventListener('htmx:afterSettle', () => { reserve(); keepFocus(); });
  // Right after an update is swapped in (settling comes 20 ms later).
  document.addEventListener('htmx:sseMessage', keepFocus);
}

// dialpadKey: a key of the phone page's dial pad during a connected call
// sends that tone instead of typing it (true when it did).
export function dialpadKey(key: string): boolean {
  const call = connectedCall();
  if (!call) return false;
  sendDTMF(call, key);
  return true;
}
