// The page's link to the phone: what the page says when the phone behind
// it is gone. The page went on as if nothing happened when the phone
// stopped (a click on Call did nothing, the header said "Connecting this
// tab's audio…" for ever), and after the phone was started again every
// action was refused (the session lives in the phone's memory; the gate
// page's 401 was not shown) without a word. The words come from the page
// (#link-words, in its language).
import { $ } from './util';

type Words = { down?: string; session?: string; failed?: string };

function words(): Words { return $('#link-words')?.dataset ?? {}; }

// say shows the banner (#link-lost, role=alert) or hides it ('').
function say(text: string): void {
  const b = $('#link-lost');
  if (!b) return;
  if (b.textContent !== text) b.textContent = text;
  b.hidden = text === '';
}

// lostWords words what a failed answer (or none) says of the link: the
// phone did not answer (down), or answered 401 (its run does not know this
// page's session); '' when the link is fine.
function lostWords(status: number | null): string {
  if (status === null) return words().down ?? '';
  if (status === 401) return words().session ?? '';
  return '';
}

let probing = false;
let again = 0;

// probe asks the phone whether this page still reaches it: the live
// stream's error says only that it broke (the phone stopped, or a new run
// refused the session), not which. While the phone does not answer it asks
// again every few seconds: the live stream's retries back off to a minute,
// and the page said "not running" that long after the phone was back.
async function probe(): Promise<void> {
  if (probing) return;
  probing = true;
  let status: number | null = null;
  try {
    status = (await fetch('/alive', { cache: 'no-store', credentials: 'same-origin' })).status;
  } catch {
    status = null;
  } finally {
    probing = false;
  }
  say(lostWords(status));
  window.clearTimeout(again);
  again = status === null ? window.setTimeout(() => void probe(), 3000) : 0;
}

// tooBig refuses a file over its field's data-max before the form is sent
// (a contacts file): the server refuses it too, but only once it came.
function tooBig(form: HTMLFormElement): boolean {
  for (const input of form.querySelectorAll<HTMLInputElement>('input[type=file][data-max]')) {
    const max = Number(input.dataset.max);
    if (![...(input.files ?? [])].some((f) => f.size > max)) continue;
    let err = form.querySelector<HTMLElement>('#err-' + input.name);
    if (!err) {
      err = document.createElement('p');
      err.className = 'err';
      err.id = 'err-' + input.name;
      input.insertAdjacentElement('afterend', err);
    }
    err.textContent = input.dataset.toobig ?? '';
    input.setAttribute('aria-invalid', 'true');
    input.focus();
    return true;
  }
  return false;
}

export function installLink(): void {
  document.addEventListener('htmx:sseError', () => void probe());
  document.addEventListener('htmx:sseOpen', () => say(''));
  // An action that could not reach the phone at all.
  document.addEventListener('htmx:sendError', () => void probe());
  // An action answered with an error the page does not swap in (phone.ts
  // responseHandling): 401 is the lost session; anything else is said in
  // #flash with its code, not dropped.
  document.addEventListener('htmx:responseError', (e) => {
    const status = (e as CustomEvent<{ xhr?: XMLHttpRequest }>).detail?.xhr?.status ?? 0;
    const lost = lostWords(status);
    if (lost) { say(lost); return; }
    const f = $('#flash');
    if (f) f.textContent = (words().failed ?? '').replace('%d', String(status));
  });
  // Capture: before htmx's own submit handler on the (boosted) form.
  document.addEventListener('submit', (e) => {
    if (e.target instanceof HTMLFormElement && tooBig(e.target)) {
      e.preventDefault();
      e.stopImmediatePropagation();
    }
  }, true);
}
