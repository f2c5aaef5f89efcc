// Incoming calls: the ringtone (WebAudio, on the ringer device), a desktop
// notification with Answer and Decline, and the tab's title flashing.
import { $$ } from './util';

export class Ringer {
  private ctx: AudioContext | null = null;
  private gain: GainNode | null = null;
  private el = new Audio();
  private timer = 0;
  private flash = 0;
  private title = document.title;
  private notified = new Set<string>();
  device = '';
  volume = 80;

  ringing(): boolean { return this.timer !== 0; }

  // start plays the usual 425 Hz ring cadence: one second on, four off.
  start(): void {
    if (this.timer) return;
    if (!this.ctx) {
      this.ctx = new AudioContext();
      const dest = this.ctx.createMediaStreamDestination();
      this.gain = this.ctx.createGain();
      this.gain.gain.value = 0;
      for (const f of [425, 450]) {
        const o = this.ctx.createOscillator();
        o.frequency.value = f;
        o.connect(this.gain);
        o.start();
      }
      this.gain.connect(dest);
      this.el.srcObject = dest.stream;
    }
    void this.ctx.resume();
    const el = this.el as HTMLAudioElement & { setSinkId?: (id: string) => Promise<void> };
    if (el.setSinkId) void el.setSinkId(this.device).catch(() => undefined);
    void this.play();
    const on = () => {
      if (!this.ctx || !this.gain) return;
      const t = this.ctx.currentTime, v = (this.volume / 100) * 0.3;
      this.gain.gain.setValueAtTime(v, t);
      this.gain.gain.setValueAtTime(0, t + 1);
    };
    on();
    this.timer = window.setInterval(on, 5000);
    this.title = document.title;
    let odd = false;
    this.flash = window.setInterval(() => {
      odd = !odd;
      document.title = odd ? '☎ ' + (document.body.dataset.incoming ?? 'Incoming call') : this.title;
    }, 1000);
  }

  // play starts the ringer's sound. A page nobody clicked may be held by
  // the browser's autoplay policy (Firefox's default, Chromium's without
  // the site's media engagement: a page the phone opened at login): the
  // call rang in silence and nothing said why. While the ring is held the
  // header shows "Click to hear the call" (data-ring-held on <html>, as
  // rtc.ts does for a call's audio); that click starts it.
  private async play(): Promise<void> {
    const blocked = await this.el.play().then(() => false, (e: unknown) => (e as DOMException)?.name === 'NotAllowedError');
    this.held(this.timer !== 0 && (blocked || this.ctx?.state === 'suspended'));
  }

  private held(on: boolean): void {
    const root = document.documentElement;
    if (on) root.dataset.ringHeld = '';
    else delete root.dataset.ringHeld;
  }

  // unhold is the click on "Click to hear the call" (a user activation).
  async unhold(): Promise<void> {
    if (!this.timer) return;
    void this.ctx?.resume();
    await this.play();
  }

  stop(): void {
    this.held(false);
    if (!this.timer) return;
    clearInterval(this.timer);
    clearInterval(this.flash);
    this.timer = 0;
    this.flash = 0;
    document.title = this.title;
    if (this.gain && this.ctx) this.gain.gain.setValueAtTime(0, this.ctx.currentTime);
    this.el.pause();
  }

  test(): void {
    this.start();
    setTimeout(() => this.stop(), 3000);
  }

  // update rings while some call rings in and notifies once per such call.
  // A call that no longer rings here (the caller gave up, it was answered
  // or declined, here or elsewhere) takes its notification away: it asks
  // for a click (requireInteraction) and stayed up for good, offering
  // Answer on a call that was gone, whose click then did nothing. Only the
  // calls ringing now are remembered.
  update(): void {
    const ringing = $$('[data-state="ringing-in"]');
    const now = new Set(ringing.map((c) => c.dataset.callId ?? ''));
    for (const id of this.notified) {
      if (now.has(id)) continue;
      this.notified.delete(id);
      void unnotify(id);
    }
    if (ringing.length === 0) { this.stop(); return; }
    this.start();
    for (const card of ringing) {
      const id = card.dataset.callId ?? '';
      if (this.notified.has(id)) continue;
      this.notified.add(id);
      void notify(card, () => this.notified.has(id));
    }
  }
}

// plain are the notifications made without the service worker, by call.
const plain = new Map<string, Notification>();

// unnotify closes the notification of a call that no longer rings.
async function unnotify(call: string): Promise<void> {
  plain.get(call)?.close();
  plain.delete(call);
  try {
    const reg = await navigator.serviceWorker?.getRegistration('/');
    for (const n of await reg?.getNotifications({ tag: 'call-' + call }) ?? []) n.close();
  } catch { /* no service worker: nothing of its to close */ }
}

// notify shows a desktop notification with Answer and Decline; the buttons
// work through the service worker (only its notifications carry actions).
// still tells whether the call still rings: one that stopped while the
// notification was being shown has it closed again at once.
async function notify(card: HTMLElement, still: () => boolean): Promise<void> {
  if (!('Notification' in window) || Notification.permission !== 'granted') return;
  const title = card.querySelector('.state')?.textContent ?? 'Incoming call';
  const body = card.querySelector('.who')?.textContent ?? '';
  const answer = card.querySelector('[data-action="answer"]')?.textContent ?? 'Answer';
  const decline = card.querySelector('[data-action="decline"]')?.textContent ?? 'Decline';
  const data = { call: card.dataset.callId };
  try {
    const reg = await navigator.serviceWorker?.getRegistration('/');
    if (reg) {
      await reg.showNotification(title, {
        body, tag: 'call-' + data.call, requireInteraction: true, data,
        actions: [{ action: 'answer', title: answer }, { action: 'decline', title: decline }],
      } as NotificationOptions);
      if (!still()) await unnotify(data.call ?? '');
      return;
    }
  } catch { /* fall back to a plain notification */ }
  if (!still()) return;
  const n = new Notification(title, { body, tag: 'call-' + data.call });
  n.onclick = () => { window.focus(); n.close(); };
  n.onclose = () => { if (plain.get(data.call ?? '') === n) plain.delete(data.call ?? ''); };
  plain.set(data.call ?? '', n);
}

// act runs what a notification button asked for on the call's card.
export function act(action: string, call: string): void {
  const btn = document.querySelector<HTMLButtonElement>(`[data-call-id="${CSS.escape(call)}"] [data-action="${action}"]`);
  btn?.click();
  window.focus();
}
