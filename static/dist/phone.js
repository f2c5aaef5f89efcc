"use strict";
(() => {
  // static/src/util.ts
  function csrf() {
    const m = document.querySelector('meta[name="csrf-token"]');
    return m?.content ?? "";
  }
  async function post(path, body) {
    return fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify(body)
    });
  }
  function tabID() {
    let id = sessionStorage.getItem("softphone-tab");
    if (!id) {
      id = crypto.randomUUID();
      sessionStorage.setItem("softphone-tab", id);
    }
    return id;
  }
  function $(sel, root = document) {
    return root.querySelector(sel);
  }
  function $$(sel, root = document) {
    return Array.from(root.querySelectorAll(sel));
  }
  function clock(secs) {
    const s = Math.max(0, Math.floor(secs));
    const h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60), r = s % 60;
    const mm = h > 0 ? String(m).padStart(2, "0") : String(m);
    return (h > 0 ? h + ":" : "") + mm + ":" + String(r).padStart(2, "0");
  }
  function savedAudio() {
    const def = { microphone: "", speaker: "", ringer: "", mic_volume: 100, speaker_volume: 100, ringer_volume: 80 };
    const el = $("#audio-panel");
    const stored = localStorage.getItem("softphone-audio");
    try {
      const fromPage = el?.dataset.audio ? JSON.parse(el.dataset.audio) : {};
      const fromStore = stored ? JSON.parse(stored) : {};
      return { ...def, ...fromStore, ...fromPage };
    } catch {
      return def;
    }
  }

  // static/src/rtc.ts
  var Audio2 = class {
    constructor(settings2) {
      this.settings = settings2;
      this.speaker.autoplay = true;
    }
    settings;
    pc = null;
    mic = null;
    ctx = null;
    micGain = null;
    micLevel = null;
    spkLevel = null;
    sender = null;
    speaker = new window.Audio();
    muted = false;
    state = "idle";
    retry = 0;
    context() {
      if (!this.ctx) this.ctx = new AudioContext();
      return this.ctx;
    }
    // micTrack opens the chosen microphone and runs it through a gain (volume)
    // and an analyser (level meter).
    async micTrack() {
      this.mic?.getTracks().forEach((t) => t.stop());
      const id = this.settings.microphone;
      this.mic = await navigator.mediaDevices.getUserMedia({
        audio: id ? { deviceId: { exact: id }, echoCancellation: true } : { echoCancellation: true }
      });
      const ctx = this.context();
      const src = ctx.createMediaStreamSource(this.mic);
      this.micGain = ctx.createGain();
      this.micGain.gain.value = this.muted ? 0 : this.settings.mic_volume / 100;
      this.micLevel = ctx.createAnalyser();
      const dest = ctx.createMediaStreamDestination();
      src.connect(this.micGain).connect(this.micLevel);
      this.micGain.connect(dest);
      return dest.stream.getAudioTracks()[0];
    }
    // connect offers our audio to the bridge and plays what it sends.
    async connect() {
      this.close();
      this.state = "connecting";
      try {
        const track = await this.micTrack();
        const pc = new RTCPeerConnection({ iceServers: [] });
        this.pc = pc;
        this.sender = pc.addTrack(track, new MediaStream([track]));
        pc.ontrack = (e) => this.play(e.streams[0] ?? new MediaStream([e.track]));
        pc.onconnectionstatechange = () => {
          if (pc.connectionState === "failed") this.later();
          if (pc.connectionState === "connected") void post("/webrtc/focus", { tab: tabID() }).catch(() => void 0);
        };
        await pc.setLocalDescription(await pc.createOffer());
        await gathered(pc, 3e3);
        const res = await post("/webrtc/offer", { tab: tabID(), sdp: pc.localDescription?.sdp ?? "" });
        if (!res.ok) throw new Error("offer refused: " + res.status);
        const ans = await res.json();
        await pc.setRemoteDescription({ type: "answer", sdp: ans.sdp });
        this.state = "connected";
        this.retry = 0;
      } catch (e) {
        console.warn("softphone audio:", e);
        this.state = "failed";
        this.later();
      }
    }
    later() {
      if (this.retry > 5) return;
      this.retry++;
      setTimeout(() => void this.connect(), 2e3 * this.retry);
    }
    close() {
      this.pc?.close();
      this.pc = null;
    }
    play(stream) {
      this.speaker.srcObject = stream;
      this.speaker.volume = this.settings.speaker_volume / 100;
      void this.applySpeaker();
      const ctx = this.context();
      this.spkLevel = ctx.createAnalyser();
      ctx.createMediaStreamSource(stream).connect(this.spkLevel);
      void this.speaker.play().catch(() => void 0);
    }
    async applySpeaker() {
      const el = this.speaker;
      if (el.setSinkId) await el.setSinkId(this.settings.speaker).catch(() => void 0);
    }
    async switchMic() {
      if (!this.sender) return;
      await this.sender.replaceTrack(await this.micTrack());
    }
    setMuted(m) {
      this.muted = m;
      if (this.micGain) this.micGain.gain.value = m ? 0 : this.settings.mic_volume / 100;
    }
    setVolume(name, v) {
      if (name === "mic_volume") {
        this.settings.mic_volume = v;
        this.setMuted(this.muted);
      }
      if (name === "speaker_volume") {
        this.settings.speaker_volume = v;
        this.speaker.volume = v / 100;
      }
      if (name === "ringer_volume") this.settings.ringer_volume = v;
    }
    async focus() {
      if (!this.pc || this.pc.connectionState === "closed" || this.pc.connectionState === "failed") {
        await this.connect();
        return;
      }
      await post("/webrtc/focus", { tab: tabID() }).catch(() => void 0);
    }
    // meters shows the microphone and speaker levels while the page is open.
    meters() {
      const buf = new Uint8Array(256);
      const level = (a) => {
        if (!a) return 0;
        a.getByteTimeDomainData(buf);
        let peak = 0;
        for (const v of buf) peak = Math.max(peak, Math.abs(v - 128) / 128);
        return peak;
      };
      const tick2 = () => {
        const m = $("#level-mic");
        const s = $("#level-speaker");
        if (m) m.value = level(this.micLevel);
        if (s) s.value = level(this.spkLevel);
        requestAnimationFrame(tick2);
      };
      requestAnimationFrame(tick2);
    }
  };
  function gathered(pc, ms) {
    if (pc.iceGatheringState === "complete") return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      pc.addEventListener("icegatheringstatechange", () => {
        if (pc.iceGatheringState === "complete") {
          clearTimeout(t);
          resolve();
        }
      });
    });
  }

  // static/src/ring.ts
  var Ringer = class {
    ctx = null;
    gain = null;
    el = new Audio();
    timer = 0;
    flash = 0;
    title = document.title;
    notified = /* @__PURE__ */ new Set();
    device = "";
    volume = 80;
    ringing() {
      return this.timer !== 0;
    }
    // start plays the usual 425 Hz ring cadence: one second on, four off.
    start() {
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
      const el = this.el;
      if (el.setSinkId) void el.setSinkId(this.device).catch(() => void 0);
      void this.el.play().catch(() => void 0);
      const on = () => {
        if (!this.ctx || !this.gain) return;
        const t = this.ctx.currentTime, v = this.volume / 100 * 0.3;
        this.gain.gain.setValueAtTime(v, t);
        this.gain.gain.setValueAtTime(0, t + 1);
      };
      on();
      this.timer = window.setInterval(on, 5e3);
      this.title = document.title;
      let odd = false;
      this.flash = window.setInterval(() => {
        odd = !odd;
        document.title = odd ? "\u260E " + (document.body.dataset.incoming ?? "Incoming call") : this.title;
      }, 1e3);
    }
    stop() {
      if (!this.timer) return;
      clearInterval(this.timer);
      clearInterval(this.flash);
      this.timer = 0;
      this.flash = 0;
      document.title = this.title;
      if (this.gain && this.ctx) this.gain.gain.setValueAtTime(0, this.ctx.currentTime);
      this.el.pause();
    }
    test() {
      this.start();
      setTimeout(() => this.stop(), 3e3);
    }
    // update rings while some call rings in and notifies once per such call.
    update() {
      const ringing = $$('[data-state="ringing-in"]');
      if (ringing.length === 0) {
        this.stop();
        return;
      }
      this.start();
      for (const card of ringing) {
        const id = card.dataset.callId ?? "";
        if (this.notified.has(id)) continue;
        this.notified.add(id);
        void notify(card);
      }
    }
  };
  async function notify(card) {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    const title = card.querySelector(".state")?.textContent ?? "Incoming call";
    const body = card.querySelector(".who")?.textContent ?? "";
    const answer = card.querySelector('[data-action="answer"]')?.textContent ?? "Answer";
    const decline = card.querySelector('[data-action="decline"]')?.textContent ?? "Decline";
    const data = { call: card.dataset.callId };
    try {
      const reg = await navigator.serviceWorker?.getRegistration("/");
      if (reg) {
        await reg.showNotification(title, {
          body,
          tag: "call-" + data.call,
          requireInteraction: true,
          data,
          actions: [{ action: "answer", title: answer }, { action: "decline", title: decline }]
        });
        return;
      }
    } catch {
    }
    const n = new Notification(title, { body, tag: "call-" + data.call });
    n.onclick = () => {
      window.focus();
      n.close();
    };
  }
  function act(action, call) {
    const btn = document.querySelector(`[data-call-id="${CSS.escape(call)}"] [data-action="${action}"]`);
    btn?.click();
    window.focus();
  }

  // static/src/keys.ts
  function parseCombo(s) {
    const parts = s.split("+").map((p) => p.trim().toLowerCase()).filter(Boolean);
    if (parts.length === 0) return null;
    const key = parts[parts.length - 1];
    const mods = new Set(parts.slice(0, -1));
    return { ctrl: mods.has("ctrl") || mods.has("control"), alt: mods.has("alt"), shift: mods.has("shift"), meta: mods.has("meta") || mods.has("super"), key };
  }
  function matches(c, e) {
    const key = e.key.toLowerCase();
    const code = e.code.toLowerCase().replace(/^key|^digit/, "");
    return c.ctrl === e.ctrlKey && c.alt === e.altKey && c.shift === e.shiftKey && c.meta === e.metaKey && (c.key === key || c.key === code || c.key === "space" && key === " ");
  }
  function target(a) {
    switch (a) {
      case "answer":
        return $('[data-state="ringing-in"] [data-action="answer"]');
      case "hangup":
        return $('[data-state="active"] [data-action="hangup"], [data-state="dialing"] [data-action="hangup"], [data-state="ringing-out"] [data-action="hangup"], [data-action="hangup"]');
      case "hold":
        return $('[data-action="hold"], [data-action="resume"]');
      case "mute":
        return $('[data-action="mute"]');
    }
  }
  function installHotkeys() {
    document.addEventListener("keydown", (e) => {
      let map = {};
      try {
        map = JSON.parse(document.body.dataset.hotkeys || "{}");
      } catch {
        return;
      }
      const typing = e.target?.closest?.("input, textarea, select");
      for (const a of ["answer", "hangup", "hold", "mute"]) {
        const c = map[a] ? parseCombo(map[a]) : null;
        if (!c || !matches(c, e)) continue;
        if (typing && !c.ctrl && !c.alt && !c.meta) continue;
        const btn = target(a);
        if (btn) {
          e.preventDefault();
          btn.click();
        }
        return;
      }
    });
  }

  // static/src/phone.ts
  var settings = savedAudio();
  var audio = new Audio2(settings);
  var ringer = new Ringer();
  ringer.device = settings.ringer;
  ringer.volume = settings.ringer_volume;
  function configureHtmx() {
    const h = window.htmx;
    if (!h) return;
    h.config.responseHandling = [
      { code: "204", swap: false },
      { code: "[23]..", swap: true },
      { code: "(400|404|409|422|503)", swap: true, error: false },
      { code: "[45]..", swap: false, error: true }
    ];
    h.config.scrollIntoViewOnBoost = false;
  }
  function refresh() {
    ringer.update();
    const holder = $("#audio-holder");
    const text = $("#audio-text");
    if (holder && text) {
      const attached = holder.dataset.attached === "true";
      const here = attached && holder.dataset.holder === tabID();
      setText(text, here ? holder.dataset.here ?? "" : attached ? holder.dataset.other ?? "" : holder.dataset.none ?? "");
      const cls = here ? "ok" : "warn";
      if (text.className !== cls) text.className = cls;
    }
    tick();
  }
  function setText(el, s) {
    if (el.textContent !== s) el.textContent = s;
  }
  function tick() {
    const now = Date.now();
    for (const t of $$("time.timer")) {
      const since = Number(t.dataset.answered || 0) || Number(t.dataset.since || 0);
      setText(t, since ? clock((now - since) / 1e3) : "");
    }
  }
  function dialpad() {
    document.addEventListener("click", (e) => {
      const el = e.target.closest("[data-key], [data-clear], #redial, #mic-mute, #ring-test, #take-audio, #notify-enable, #links-enable");
      if (!el) return;
      const num = $("#number");
      if (el.dataset.key && num && el.closest("#dial-form")) {
        num.value += el.dataset.key;
        num.focus();
      } else if (el.dataset.clear && num) {
        num.value = num.value.slice(0, -1);
        num.focus();
      } else if (el.id === "redial" && num && el.dataset.redial) {
        num.value = el.dataset.redial;
        num.form.requestSubmit();
      } else if (el.id === "mic-mute") {
        audio.setMuted(!audio.muted);
        el.setAttribute("aria-pressed", String(audio.muted));
      } else if (el.id === "ring-test") {
        ringer.test();
      } else if (el.id === "take-audio") {
        void audio.focus();
      } else if (el.id === "notify-enable") {
        void Notification.requestPermission();
      } else if (el.id === "links-enable") {
        for (const scheme of ["tel", "sip"]) {
          try {
            navigator.registerProtocolHandler(scheme, location.origin + "/dial?uri=%s");
          } catch (err) {
            console.warn(err);
          }
        }
      }
    });
  }
  async function devices() {
    const sels = $$("select[data-device]");
    if (sels.length === 0 || !navigator.mediaDevices?.enumerateDevices) return;
    const list = await navigator.mediaDevices.enumerateDevices();
    for (const sel of sels) {
      const kind = sel.dataset.device;
      const want = kind === "microphone" ? "audioinput" : "audiooutput";
      const chosen = settings[kind];
      sel.length = 1;
      for (const d of list.filter((d2) => d2.kind === want && d2.deviceId !== "default")) {
        sel.add(new Option(d.label || d.deviceId.slice(0, 8), d.deviceId, false, d.deviceId === chosen));
      }
    }
  }
  function audioControls() {
    document.addEventListener("change", (e) => {
      const el = e.target;
      const kind = el.dataset.device;
      if (kind) {
        settings[kind] = el.value;
        if (kind === "microphone") void audio.switchMic();
        if (kind === "speaker") void audio.applySpeaker();
        if (kind === "ringer") ringer.device = el.value;
        void post("/audio", { key: kind, value: el.value });
      } else if (el.dataset.volume) {
        const v = Number(el.value);
        audio.setVolume(el.dataset.volume, v);
        if (el.dataset.volume === "ringer_volume") ringer.volume = v;
        void post("/audio", { key: el.dataset.volume, value: el.value });
      } else if (el.id === "theme-select") {
        document.documentElement.dataset.theme = el.value;
        void post("/appearance/theme", { theme: el.value });
      } else {
        return;
      }
      localStorage.setItem("softphone-audio", JSON.stringify(settings));
    });
  }
  function start() {
    configureHtmx();
    document.body.dataset.incoming = document.body.dataset.incoming ?? "Incoming call";
    installHotkeys();
    dialpad();
    audioControls();
    new MutationObserver(refresh).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-state", "data-holder", "data-attached"] });
    setInterval(tick, 1e3);
    refresh();
    void audio.connect().then(() => devices());
    audio.meters();
    window.addEventListener("focus", () => void audio.focus());
    window.addEventListener("pagehide", () => {
      navigator.sendBeacon("/webrtc/close", new URLSearchParams({ tab: tabID(), csrf: csrf() }));
    });
    document.addEventListener("htmx:afterSettle", () => void devices());
    document.addEventListener("htmx:beforeRequest", () => {
      const f = $("#flash");
      if (f) setText(f, "");
    });
    document.body.addEventListener("dialed", () => {
      const num = $("#number");
      const btn = $("#redial");
      if (num && btn && num.value.trim()) {
        btn.dataset.redial = num.value.trim();
        btn.disabled = false;
      }
    });
    document.addEventListener("pointerdown", () => {
      void audio.ctx?.resume();
      if ("Notification" in window && Notification.permission === "default") void Notification.requestPermission();
    }, { once: true });
    if ("serviceWorker" in navigator) {
      navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => void 0);
      navigator.serviceWorker.addEventListener("message", (e) => {
        const m = e.data;
        if (m?.type === "softphone-notification" && m.call && (m.action === "answer" || m.action === "decline")) act(m.action, m.call);
      });
    }
    window.softphone = { audio, ringer, tab: tabID() };
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
