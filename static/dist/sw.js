"use strict";
(() => {
  // static/src/sw.ts
  var sw = self;
  sw.addEventListener("notificationclick", (event) => {
    event.notification.close();
    const call = event.notification.data?.call ?? "";
    const action = event.action || "focus";
    event.waitUntil((async () => {
      const wins = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
      const win = wins.find((w) => w.focused) ?? wins[0];
      if (!win) {
        await sw.clients.openWindow("/").catch(() => void 0);
        return;
      }
      win.postMessage({ type: "softphone-notification", action, call });
      await win.focus().catch(() => void 0);
    })());
  });
})();
