// The service worker: only routes clicks on notification buttons (Answer,
// Decline) to an open phone page and brings it to the front; with no phone
// page open (closed while the call rang: the notification asks for a click
// and stays), it opens one, where the call rings on (the click did
// nothing). Typed loosely:
// the DOM and WebWorker libraries of TypeScript do not mix in one project.
/* eslint-disable @typescript-eslint/no-explicit-any */
const sw = self as any;

interface Win { focused: boolean; postMessage(m: unknown): void; focus(): Promise<unknown> }

sw.addEventListener('notificationclick', (event: any) => {
  event.notification.close();
  const call: string = event.notification.data?.call ?? '';
  const action: string = event.action || 'focus';
  event.waitUntil((async () => {
    const wins: Win[] = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const win = wins.find((w) => w.focused) ?? wins[0];
    if (!win) {
      await sw.clients.openWindow('/').catch(() => undefined);
      return;
    }
    win.postMessage({ type: 'softphone-notification', action, call });
    await win.focus().catch(() => undefined);
  })());
});
