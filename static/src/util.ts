// Small helpers shared by the phone module.

export function csrf(): string {
  const m = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]');
  return m?.content ?? '';
}

// post sends JSON to the phone with the session's CSRF token.
export async function post(path: string, body: unknown): Promise<Response> {
  return fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf() },
    body: JSON.stringify(body),
  });
}

// tabID names this tab to the audio bridge; it survives reloads of the tab
// but is not shared with a copy of it. The browser copies a tab's
// sessionStorage into a tab opened from it (a link opened in a new tab,
// Duplicate, window.open), and the two pages were one tab to the phone:
// both said they held the audio and a call opened both microphones. So an
// open page marks the storage (softphone-tab-open) and takes the mark away
// as it goes (pagehide, before a reload's new page runs); a page that finds
// the mark is a copy and takes an id of its own. A page back from the
// back-forward cache marks it again.
let tab = '';

export function tabID(): string {
  if (tab) return tab;
  let id = sessionStorage.getItem('softphone-tab');
  if (!id || sessionStorage.getItem('softphone-tab-open')) {
    id = crypto.randomUUID();
    sessionStorage.setItem('softphone-tab', id);
  }
  sessionStorage.setItem('softphone-tab-open', '1');
  window.addEventListener('pagehide', () => sessionStorage.removeItem('softphone-tab-open'));
  window.addEventListener('pageshow', (e) => { if (e.persisted) sessionStorage.setItem('softphone-tab-open', '1'); });
  tab = id;
  return id;
}

export function $(sel: string, root: ParentNode = document): HTMLElement | null {
  return root.querySelector<HTMLElement>(sel);
}

export function $$(sel: string, root: ParentNode = document): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(sel));
}

// clock formats a span in seconds as m:ss or h:mm:ss.
export function clock(secs: number): string {
  const s = Math.max(0, Math.floor(secs));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return (h > 0 ? h + ':' : '') + mm + ':' + String(r).padStart(2, '0');
}

// audioSettings is the saved device choice and volumes (from the phone page).
export interface AudioSettings {
  microphone: string; speaker: string; ringer: string;
  mic_volume: number; speaker_volume: number; ringer_volume: number;
}

export function savedAudio(): AudioSettings {
  const def: AudioSettings = { microphone: '', speaker: '', ringer: '', mic_volume: 100, speaker_volume: 100, ringer_volume: 80 };
  const el = $('#audio-panel');
  const stored = localStorage.getItem('softphone-audio');
  try {
    const fromPage = el?.dataset.audio ? JSON.parse(el.dataset.audio) : {};
    const fromStore = stored ? JSON.parse(stored) : {};
    return { ...def, ...fromStore, ...fromPage };
  } catch {
    return def;
  }
}
