// Hotkeys (settings hotkeys.*) for answer, hang up, hold and mute.
import { $ } from './util';

type Action = 'answer' | 'hangup' | 'hold' | 'mute';

interface Combo { ctrl: boolean; alt: boolean; shift: boolean; meta: boolean; key: string }

export function parseCombo(s: string): Combo | null {
  const parts = s.split('+').map((p) => p.trim().toLowerCase()).filter(Boolean);
  if (parts.length === 0) return null;
  const key = parts[parts.length - 1];
  const mods = new Set(parts.slice(0, -1));
  return { ctrl: mods.has('ctrl') || mods.has('control'), alt: mods.has('alt'), shift: mods.has('shift'), meta: mods.has('meta') || mods.has('super'), key };
}

function matches(c: Combo, e: KeyboardEvent): boolean {
  const key = e.key.toLowerCase();
  const code = e.code.toLowerCase().replace(/^key|^digit/, '');
  return c.ctrl === e.ctrlKey && c.alt === e.altKey && c.shift === e.shiftKey && c.meta === e.metaKey &&
    (c.key === key || c.key === code || (c.key === 'space' && key === ' '));
}

// first is the first element matching the selectors taken in their order
// (querySelector with a list would take the first in document order).
function first(...sels: string[]): HTMLElement | null {
  for (const s of sels) {
    const el = $(s);
    if (el) return el;
  }
  return null;
}

// target finds the button an action presses: on the call where it applies,
// the connected call before a held or ringing one.
function target(a: Action): HTMLElement | null {
  switch (a) {
    case 'answer': return $('[data-state="ringing-in"] [data-action="answer"]');
    case 'hangup': return first('[data-state="active"] [data-action="hangup"]', '[data-state="dialing"] [data-action="hangup"]', '[data-state="ringing-out"] [data-action="hangup"]', '[data-action="hangup"]');
    case 'hold': return first('[data-state="active"] [data-action="hold"]', '[data-action="resume"]', '[data-action="hold"]');
    case 'mute': return first('[data-state="active"] [data-action="mute"]', '[data-action="mute"]');
  }
}

export function installHotkeys(): void {
  document.addEventListener('keydown', (e) => {
    let map: Record<string, string> = {};
    try { map = JSON.parse(document.body.dataset.hotkeys || '{}'); } catch { return; }
    const typing = (e.target as HTMLElement)?.closest?.('input, textarea, select');
    for (const a of ['answer', 'hangup', 'hold', 'mute'] as Action[]) {
      const c = map[a] ? parseCombo(map[a]) : null;
      if (!c || !matches(c, e)) continue;
      if (typing && !c.ctrl && !c.alt && !c.meta) continue; // plain keys type into fields
      const btn = target(a);
      if (btn) { e.preventDefault(); btn.click(); }
      return;
    }
  });
}
