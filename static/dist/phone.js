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
  var tab = "";
  function tabID() {
    if (tab) return tab;
    let id = sessionStorage.getItem("softphone-tab");
    if (!id || sessionStorage.getItem("softphone-tab-open")) {
      id = crypto.randomUUID();
      sessionStorage.setItem("softphone-tab", id);
    }
    sessionStorage.setItem("softphone-tab-open", "1");
    window.addEventListener("pagehide", () => sessionStorage.removeItem("softphone-tab-open"));
    window.addEventListener("pageshow", (e) => {
      if (e.persisted) sessionStorage.setItem("softphone-tab-open", "1");
    });
    tab = id;
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
  var ICE_WAIT = 3e3;
  var Audio2 = class {
    // the speaker element's play() was refused (autoplay)
    constructor(settings2) {
      this.settings = settings2;
      this.speaker.autoplay = true;
      document.addEventListener("visibilitychange", () => {
        if (!document.hidden && this.active) this.meters();
      });
      document.addEventListener("click", (e) => {
        if (e.target?.closest?.("#audio-play")) void this.unhold();
      });
    }
    settings;
    pc = null;
    mic = null;
    ctx = null;
    micGain = null;
    micSrc = null;
    micLevel = null;
    spkLevel = null;
    sender = null;
    speaker = new window.Audio();
    muted = false;
    state = "ready";
    path = "";
    out = null;
    // what the tab plays now (tests tap it)
    // held: during a call the browser holds the page's sound (the autoplay
    // policy of a page never clicked, e.g. a call placed through the API);
    // the header shows "Click to hear the call" (#audio-play) until a click.
    held = false;
    // constraints are added to the microphone's (echoCancellation: true);
    // only the echo test (server/web/e2e/echo.mjs) sets them, to measure what
    // the canceller removes.
    constraints = {};
    // Figures for the benchmark: when the person clicked and when the
    // microphone was live (performance.now()).
    clickAt = 0;
    micAt = 0;
    // conn names the WebRTC connection this page made (the offer's answer);
    // the close beacon sends it back, so a reloaded page's old beacon, which
    // may arrive after the new page connected with the same tab id, closes
    // only the old page's connection.
    conn = "";
    onchange = () => void 0;
    ws = null;
    wsRetry = 0;
    node = null;
    active = false;
    // a call needs the audio now
    gen = 0;
    // start/stop generation: a late promise of an old start is dropped
    metering = false;
    processed = null;
    // the microphone through gain (mute, volume)
    playBlocked = false;
    context() {
      if (!this.ctx) {
        this.ctx = new AudioContext();
        this.ctx.addEventListener("statechange", () => this.checkHeld());
      }
      return this.ctx;
    }
    // checkHeld shows or hides the header's "Click to hear the call": while
    // a call has the audio and the browser holds the AudioContext (Chromium's
    // default autoplay policy; Firefox lets a page that captures the
    // microphone play) or refused to play the call. The mark is on <html>,
    // which boosted navigation keeps (the CSS of #audio-play reads it).
    checkHeld() {
      const running = this.ctx?.state === "running";
      if (running && this.path === "webrtc" && this.sender && this.processed && this.sender.track !== this.processed) {
        void this.sender.replaceTrack(this.processed).catch(() => void 0);
      }
      const held = this.active && this.path !== "" && (!running || this.playBlocked);
      if (held === this.held) return;
      this.held = held;
      if (held) document.documentElement.dataset.audioHeld = "";
      else delete document.documentElement.dataset.audioHeld;
      this.onchange();
    }
    // unhold is the click on "Click to hear the call": the context and the
    // speaker may start now.
    async unhold() {
      await this.ctx?.resume().catch(() => void 0);
      if (this.speaker.srcObject) {
        await this.speaker.play().then(() => {
          this.playBlocked = false;
        }).catch(() => void 0);
      } else this.playBlocked = false;
      this.checkHeld();
    }
    // open connects the page's socket and reports what is known before any
    // call: a microphone the browser already blocks, or none at all.
    async open() {
      this.state = await this.precheck();
      this.socket();
      this.onchange();
    }
    async precheck() {
      try {
        const p = await navigator.permissions.query({ name: "microphone" });
        if (p.state === "denied") return "mic-blocked";
      } catch {
      }
      try {
        const list = await navigator.mediaDevices.enumerateDevices();
        if (!list.some((d) => d.kind === "audioinput")) return "no-mic";
      } catch {
      }
      return "ready";
    }
    socket() {
      const ws = new WebSocket(location.origin.replace(/^http/, "ws") + "/audio/ws?tab=" + encodeURIComponent(tabID()));
      ws.binaryType = "arraybuffer";
      this.ws = ws;
      ws.onopen = () => {
        this.wsRetry = 0;
        this.report(document.hasFocus());
        if (this.path === "pcm") this.send({ audio: "pcm" });
      };
      ws.onmessage = (e) => {
        if (e.data instanceof ArrayBuffer) this.node?.port.postMessage(e.data, [e.data]);
      };
      ws.onclose = () => {
        if (this.ws !== ws) return;
        this.ws = null;
        this.wsRetry = Math.min(this.wsRetry + 1, 10);
        setTimeout(() => this.socket(), 500 * this.wsRetry);
      };
    }
    send(m) {
      if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(m));
    }
    // report tells the phone this tab's state (connecting and live count as
    // ready), and with focus that this tab takes the audio.
    report(focus = false) {
      const s = this.state === "connecting" || this.state === "live" ? "ready" : this.state;
      this.send(focus ? { state: s, focus: true } : { state: s });
    }
    set(s) {
      if (this.state === s) return;
      this.state = s;
      this.report();
      this.onchange();
    }
    // need is told by the page whether a call needs this tab's audio now.
    need(on) {
      if (on && !this.active) void this.start();
      if (!on && this.active) this.stop();
    }
    // start opens the microphone and connects the audio for a call.
    async start() {
      if (this.active) return;
      this.active = true;
      const gen = ++this.gen;
      this.set("connecting");
      let track;
      try {
        track = await this.micTrack(gen);
      } catch (e) {
        if (e === STALE || gen !== this.gen) return;
        this.active = false;
        const n = e?.name;
        this.set(n === "NotAllowedError" || n === "SecurityError" ? "mic-blocked" : n === "NotFoundError" || n === "OverconstrainedError" ? "no-mic" : "failed");
        return;
      }
      if (gen !== this.gen) return;
      this.processed = track;
      const raw = this.mic?.getAudioTracks()[0];
      if (this.ctx?.state !== "running" && raw) track = raw;
      if (await this.webrtc(track, gen)) {
        if (gen === this.gen) {
          this.meters();
          this.checkHeld();
        }
        return;
      }
      if (gen !== this.gen) return;
      this.closePC();
      try {
        await this.fallback();
        if (gen !== this.gen) return;
        this.path = "pcm";
        this.send({ audio: "pcm" });
        this.set("live");
        this.meters();
        this.checkHeld();
      } catch (e) {
        console.warn("softphone audio fallback:", e);
        this.stop();
        this.set("failed");
      }
    }
    // stop closes the connection and the microphone (the last call ended).
    stop() {
      this.gen++;
      this.active = false;
      this.closePC();
      if (this.path === "pcm") this.send({ audio: "off" });
      this.path = "";
      this.node?.disconnect();
      this.node = null;
      this.out = null;
      this.mic?.getTracks().forEach((t) => t.stop());
      this.mic = null;
      this.unchain();
      this.micLevel = this.spkLevel = null;
      this.speaker.srcObject = null;
      this.processed = null;
      this.playBlocked = false;
      for (const sel of ["#level-mic", "#level-speaker"]) {
        const m = $(sel);
        if (m) m.value = 0;
      }
      this.checkHeld();
      if (this.state === "connecting" || this.state === "live") this.set("ready");
    }
    // micTrack opens the chosen microphone (echo cancellation on) and runs it
    // through a gain (volume, mute) and an analyser (level meter).
    // With gen (start), a start stopped while the browser opened the
    // microphone closes it again and throws STALE: the call that wanted it
    // ended, and the microphone stayed open (the browser's recording sign)
    // until the next call (browsers.mjs, section 7b).
    async micTrack(gen) {
      this.mic?.getTracks().forEach((t) => t.stop());
      this.unchain();
      const id = this.settings.microphone;
      const ctx = this.context();
      void ctx.resume();
      const mic = await navigator.mediaDevices.getUserMedia({
        audio: { ...id ? { deviceId: { exact: id } } : {}, echoCancellation: true, ...this.constraints }
      });
      if (gen !== void 0 && gen !== this.gen) {
        mic.getTracks().forEach((t) => t.stop());
        throw STALE;
      }
      this.mic = mic;
      this.micAt = performance.now();
      void ctx.resume();
      const src = ctx.createMediaStreamSource(this.mic);
      this.micSrc = src;
      this.micGain = ctx.createGain();
      this.micGain.gain.value = this.muted ? 0 : this.settings.mic_volume / 100;
      this.micLevel = ctx.createAnalyser();
      const dest = ctx.createMediaStreamDestination();
      src.connect(this.micGain).connect(this.micLevel);
      this.micGain.connect(dest);
      return dest.stream.getAudioTracks()[0];
    }
    // unchain takes the last microphone's nodes out of the graph: its gain
    // stayed connected to the fallback's worklet after a switch of
    // microphone, one more chain (source, gain, analyser) fed into the call
    // and kept alive for the call's life at each switch.
    unchain() {
      this.micSrc?.disconnect();
      this.micGain?.disconnect();
      this.micSrc = null;
    }
    // webrtc offers the microphone to the bridge and waits for ICE; false
    // when it did not connect (no candidate, failed, or not within ICE_WAIT).
    async webrtc(track, gen) {
      try {
        const pc = new RTCPeerConnection({ iceServers: [] });
        this.pc = pc;
        this.sender = pc.addTrack(track, new MediaStream([track]));
        pc.ontrack = (e) => this.play(e.streams[0] ?? new MediaStream([e.track]));
        await pc.setLocalDescription(await pc.createOffer());
        await gathered(pc, 3e3);
        if (gen !== this.gen) return false;
        const sdp = pc.localDescription?.sdp ?? "";
        if (!/^a=candidate:/m.test(sdp)) return false;
        const res = await post("/webrtc/offer", { tab: tabID(), sdp });
        if (!res.ok) return false;
        const ans = await res.json();
        this.conn = typeof ans.conn === "string" ? ans.conn : "";
        if (gen !== this.gen) return false;
        await pc.setRemoteDescription({ type: "answer", sdp: ans.sdp });
        const ok = await connected(pc, ICE_WAIT);
        if (!ok || gen !== this.gen) return false;
        this.path = "webrtc";
        this.set("live");
        pc.onconnectionstatechange = () => {
          if (pc.connectionState === "failed" && this.pc === pc && this.active) {
            this.stop();
            void this.start();
          }
        };
        return true;
      } catch (e) {
        console.warn("softphone audio:", e);
        return false;
      }
    }
    // fallback carries the call over the page's WebSocket through the worklet.
    async fallback() {
      const ctx = this.context();
      await ctx.audioWorklet.addModule("/static/dist/pcm.js");
      const node = new AudioWorkletNode(ctx, "pcm-io", { numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1] });
      node.port.onmessage = (e) => {
        if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(e.data);
      };
      this.micGain?.connect(node);
      const vol = ctx.createGain();
      vol.gain.value = this.settings.speaker_volume / 100;
      node.connect(vol).connect(ctx.destination);
      this.spkLevel = ctx.createAnalyser();
      node.connect(this.spkLevel);
      this.node = node;
      this.out = node;
      void ctx.resume();
    }
    closePC() {
      this.pc?.close();
      this.pc = null;
      this.sender = null;
    }
    close() {
      this.stop();
    }
    play(stream) {
      this.speaker.srcObject = stream;
      this.speaker.volume = this.settings.speaker_volume / 100;
      void this.applySpeaker();
      const ctx = this.context();
      this.spkLevel = ctx.createAnalyser();
      const src = ctx.createMediaStreamSource(stream);
      src.connect(this.spkLevel);
      this.out = src;
      this.speaker.play().then(() => {
        this.playBlocked = false;
      }, (e) => {
        if (e?.name === "NotAllowedError") this.playBlocked = true;
      }).finally(() => this.checkHeld());
    }
    async applySpeaker() {
      const el = this.speaker;
      if (el.setSinkId) await el.setSinkId(this.settings.speaker).catch(() => void 0);
    }
    // switchMic opens the newly chosen microphone for the call under way.
    // With the start's generation: a call that ended while the browser opened
    // it closes it again (it stayed open, the browser's recording sign, until
    // the next call).
    async switchMic() {
      if (!this.active) return;
      const gen = this.gen;
      try {
        if (this.path === "webrtc" && this.sender) {
          this.processed = await this.micTrack(gen);
          await this.sender.replaceTrack(this.held ? this.mic?.getAudioTracks()[0] ?? this.processed : this.processed);
        } else if (this.path === "pcm") {
          await this.micTrack(gen);
          if (this.node) this.micGain?.connect(this.node);
        }
      } catch (e) {
        if (e !== STALE) console.warn("softphone microphone:", e);
      }
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
    // take gives the audio to this tab (focus, "Use this tab"); a tab whose
    // microphone was blocked or missing, or whose audio failed, checks again.
    async take() {
      if (this.state === "mic-blocked" || this.state === "no-mic" || this.state === "failed") {
        const s = await this.precheck();
        this.state = "";
        this.set(s);
      }
      await post("/webrtc/focus", { tab: tabID() }).catch(() => void 0);
    }
    // meters shows the microphone and speaker levels while a call has the
    // audio and the page is visible; requestAnimationFrame stops with either.
    meters() {
      if (this.metering) return;
      this.metering = true;
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
        if (!this.active || document.hidden) {
          if (m) m.value = 0;
          if (s) s.value = 0;
          this.metering = false;
          return;
        }
        if (m) m.value = level(this.micLevel);
        if (s) s.value = level(this.spkLevel);
        requestAnimationFrame(tick2);
      };
      requestAnimationFrame(tick2);
    }
  };
  var STALE = new Error("stale start");
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
  function connected(pc, ms) {
    if (pc.connectionState === "connected") return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), ms);
      const on = () => {
        if (pc.connectionState === "connected") {
          clearTimeout(t);
          resolve(true);
        }
        if (pc.connectionState === "failed" || pc.connectionState === "closed") {
          clearTimeout(t);
          resolve(false);
        }
      };
      pc.addEventListener("connectionstatechange", on);
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
    shown = "";
    // the title the flash wrote last
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
      void this.play();
      const on = () => {
        if (!this.ctx || !this.gain) return;
        const t = this.ctx.currentTime, v = this.volume / 100 * 0.3;
        this.gain.gain.setValueAtTime(v, t);
        this.gain.gain.setValueAtTime(0, t + 1);
      };
      on();
      this.timer = window.setInterval(on, 5e3);
      this.title = this.shown = document.title;
      let odd = false;
      this.flash = window.setInterval(() => {
        if (document.title !== this.shown) this.title = document.title;
        odd = !odd;
        this.shown = document.title = odd ? "\u260E " + (document.body.dataset.incoming ?? "Incoming call") : this.title;
      }, 1e3);
    }
    // play starts the ringer's sound. A page nobody clicked may be held by
    // the browser's autoplay policy (Firefox's default, Chromium's without
    // the site's media engagement: a page the phone opened at login): the
    // call rang in silence and nothing said why. While the ring is held the
    // header shows "Click to hear the call" (data-ring-held on <html>, as
    // rtc.ts does for a call's audio); that click starts it.
    async play() {
      const blocked = await this.el.play().then(() => false, (e) => e?.name === "NotAllowedError");
      this.held(this.timer !== 0 && (blocked || this.ctx?.state === "suspended"));
    }
    held(on) {
      const root = document.documentElement;
      if (on) root.dataset.ringHeld = "";
      else delete root.dataset.ringHeld;
    }
    // unhold is the click on "Click to hear the call" (a user activation).
    async unhold() {
      if (!this.timer) return;
      void this.ctx?.resume();
      await this.play();
    }
    stop() {
      this.held(false);
      if (!this.timer) return;
      clearInterval(this.timer);
      clearInterval(this.flash);
      this.timer = 0;
      this.flash = 0;
      if (document.title === this.shown) document.title = this.title;
      if (this.gain && this.ctx) this.gain.gain.setValueAtTime(0, this.ctx.currentTime);
      this.el.pause();
    }
    test() {
      this.start();
      setTimeout(() => this.stop(), 3e3);
    }
    // update rings while some call rings in and notifies once per such call.
    // A call that no longer rings here (the caller gave up, it was answered
    // or declined, here or elsewhere) takes its notification away: it asks
    // for a click (requireInteraction) and stayed up for good, offering
    // Answer on a call that was gone, whose click then did nothing. Only the
    // calls ringing now are remembered.
    update() {
      const ringing = $$('[data-state="ringing-in"]');
      const now = new Set(ringing.map((c) => c.dataset.callId ?? ""));
      for (const id of this.notified) {
        if (now.has(id)) continue;
        this.notified.delete(id);
        void unnotify(id);
      }
      if (ringing.length === 0) {
        this.stop();
        return;
      }
      this.start();
      for (const card of ringing) {
        const id = card.dataset.callId ?? "";
        if (this.notified.has(id)) continue;
        this.notified.add(id);
        void notify(card, () => this.notified.has(id));
      }
    }
  };
  var plain = /* @__PURE__ */ new Map();
  async function unnotify(call) {
    plain.get(call)?.close();
    plain.delete(call);
    try {
      const reg = await navigator.serviceWorker?.getRegistration("/");
      for (const n of await reg?.getNotifications({ tag: "call-" + call }) ?? []) n.close();
    } catch {
    }
  }
  async function notify(card, still) {
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
        if (!still()) await unnotify(data.call ?? "");
        return;
      }
    } catch {
    }
    if (!still()) return;
    const n = new Notification(title, { body, tag: "call-" + data.call });
    n.onclick = () => {
      window.focus();
      n.close();
    };
    n.onclose = () => {
      if (plain.get(data.call ?? "") === n) plain.delete(data.call ?? "");
    };
    plain.set(data.call ?? "", n);
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
  function first(...sels) {
    for (const s of sels) {
      const el = $(s);
      if (el) return el;
    }
    return null;
  }
  function target(a) {
    switch (a) {
      case "answer":
        return $('[data-state="ringing-in"] [data-action="answer"]');
      case "hangup":
        return first('[data-state="active"] [data-action="hangup"]', '[data-state="dialing"] [data-action="hangup"]', '[data-state="ringing-out"] [data-action="hangup"]', '[data-action="hangup"]');
      case "hold":
        return first('[data-state="active"] [data-action="hold"]', '[data-action="resume"]', '[data-action="hold"]');
      case "mute":
        return first('[data-state="active"] [data-action="mute"]', '[data-action="mute"]');
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
      const typing2 = e.target?.closest?.("input, textarea, select");
      for (const a of ["answer", "hangup", "hold", "mute"]) {
        const c = map[a] ? parseCombo(map[a]) : null;
        if (!c || !matches(c, e)) continue;
        if (typing2 && !c.ctrl && !c.alt && !c.meta) continue;
        const btn = target(a);
        if (btn) {
          e.preventDefault();
          btn.click();
        }
        return;
      }
    });
  }

  // static/src/callbar.ts
  var DIGITS = "0123456789*#";
  function morphDefaults() {
    const im = window.Idiomorph;
    if (!im) return;
    im.defaults.callbacks.beforeAttributeUpdated = (attr, el) => {
      if (attr === "open" && el.tagName === "DETAILS") return false;
      if (attr === "value" && el.hasAttribute("data-keep-value")) return false;
      if (attr === "selected" && el.parentElement?.hasAttribute("data-keep-value")) return false;
      return true;
    };
  }
  var sizer = null;
  var observed = null;
  function reserve() {
    const bar = $("#live");
    if (!bar || bar === observed || !("ResizeObserver" in window)) return;
    const set = () => {
      const h = observed ? Math.ceil(observed.getBoundingClientRect().height) : 0;
      const v = h + "px";
      if (document.documentElement.style.getPropertyValue("--callbar-h") !== v) document.documentElement.style.setProperty("--callbar-h", v);
    };
    sizer ??= new ResizeObserver(set);
    if (observed) sizer.unobserve(observed);
    observed = bar;
    sizer.observe(bar);
    set();
  }
  var was = null;
  function trackFocus() {
    document.addEventListener("focusin", (e) => {
      const t = e.target;
      if (t.closest?.("#calls")) was = { id: t.id, call: t.closest("[data-call-id]")?.dataset.callId ?? "" };
      else was = null;
    });
    document.addEventListener("pointerdown", (e) => {
      if (!e.target?.closest?.("#calls")) was = null;
    }, true);
  }
  function keepFocus() {
    if (!was) return;
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    const prev = was.id ? document.getElementById(was.id) : null;
    const next = (prev && visible(prev) ? prev : null) ?? (was.call ? document.getElementById("call-" + was.call) : null) ?? $("#calls [data-call-id]") ?? $("#number") ?? $("#main");
    if (!next) return;
    next.focus({ preventScroll: true });
    if (!next.closest("#calls")) was = null;
  }
  function visible(el) {
    return !el.closest("[hidden]") && el.getClientRects().length > 0;
  }
  function connectedCall(from) {
    const own = from?.closest?.("#calls [data-call-id]");
    if (own && (own.dataset.state === "active" || own.dataset.state === "conference")) return own;
    return $('#calls [data-call-id][data-state="active"]') ?? $('#calls [data-call-id][data-state="conference"]');
  }
  var queue = Promise.resolve();
  function sendDTMF(call, digits) {
    const id = call.dataset.callId ?? "";
    queue = queue.then(async () => {
      const res = await fetch("/calls/" + encodeURIComponent(id) + "/dtmf", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/x-www-form-urlencoded", "X-CSRF-Token": csrf() },
        body: new URLSearchParams({ digits })
      });
      const f = $("#callbar-msg");
      if (!res.ok && f) f.textContent = (await res.text()).trim();
    }).catch(() => void 0);
  }
  function typing(t) {
    const el = t;
    return !!el?.closest?.('input, textarea, select, [contenteditable=""], [contenteditable="true"]');
  }
  function dtmfKeys() {
    document.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.altKey || e.metaKey || e.repeat || e.key.length !== 1 || !DIGITS.includes(e.key)) return;
      if (typing(e.target)) return;
      const call = connectedCall(e.target);
      if (!call) return;
      e.preventDefault();
      sendDTMF(call, e.key);
    });
  }
  var rung = /* @__PURE__ */ new Set();
  function showRinging() {
    for (const c of $$('#calls [data-call-id][data-state="ringing-in"]')) {
      const id = c.dataset.callId ?? "";
      if (rung.has(id)) continue;
      rung.add(id);
      c.scrollIntoView({ block: "nearest" });
    }
    if (rung.size > 64) rung.clear();
  }
  function padHint() {
    const hint = $("#dialpad-dtmf");
    if (!hint) return;
    const off = !connectedCall();
    if (hint.hidden !== off) hint.hidden = off;
  }
  function currentAction() {
    document.addEventListener("htmx:configRequest", (e) => {
      const d = e.detail;
      const now = d?.elt?.getAttribute?.("hx-" + (d.verb ?? ""));
      if (d && now && now !== d.path) d.path = now;
    });
  }
  function installCallbar() {
    morphDefaults();
    reserve();
    trackFocus();
    dtmfKeys();
    document.addEventListener("htmx:beforeRequest", (e) => {
      const elt = e.detail?.elt;
      const m = $("#callbar-msg");
      if (m && elt?.closest?.("#live")) m.textContent = "";
    });
    currentAction();
    document.addEventListener("htmx:afterSettle", () => {
      reserve();
      keepFocus();
    });
    document.addEventListener("htmx:sseMessage", keepFocus);
  }
  function dialpadKey(key) {
    const call = connectedCall();
    if (!call) return false;
    sendDTMF(call, key);
    return true;
  }

  // static/src/link.ts
  function words() {
    return $("#link-words")?.dataset ?? {};
  }
  function say(text) {
    const b = $("#link-lost");
    if (!b) return;
    if (b.textContent !== text) b.textContent = text;
    b.hidden = text === "";
  }
  function lostWords(status) {
    if (status === null) return words().down ?? "";
    if (status === 401) return words().session ?? "";
    return "";
  }
  var probing = false;
  var again = 0;
  async function probe() {
    if (probing) return;
    probing = true;
    let status = null;
    try {
      status = (await fetch("/alive", { cache: "no-store", credentials: "same-origin" })).status;
    } catch {
      status = null;
    } finally {
      probing = false;
    }
    say(lostWords(status));
    window.clearTimeout(again);
    again = status === null ? window.setTimeout(() => void probe(), 3e3) : 0;
  }
  function tooBig(form) {
    for (const input of form.querySelectorAll("input[type=file][data-max]")) {
      const max = Number(input.dataset.max);
      if (![...input.files ?? []].some((f) => f.size > max)) continue;
      let err = form.querySelector("#err-" + input.name);
      if (!err) {
        err = document.createElement("p");
        err.className = "err";
        err.id = "err-" + input.name;
        input.insertAdjacentElement("afterend", err);
      }
      err.textContent = input.dataset.toobig ?? "";
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return true;
    }
    return false;
  }
  function installLink() {
    document.addEventListener("htmx:sseError", () => void probe());
    document.addEventListener("htmx:sseOpen", () => say(""));
    document.addEventListener("htmx:sendError", () => void probe());
    document.addEventListener("htmx:responseError", (e) => {
      const status = e.detail?.xhr?.status ?? 0;
      const lost = lostWords(status);
      if (lost) {
        say(lost);
        return;
      }
      const f = $("#flash");
      if (f) f.textContent = (words().failed ?? "").replace("%d", String(status));
    });
    document.addEventListener("submit", (e) => {
      if (e.target instanceof HTMLFormElement && tooBig(e.target)) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    }, true);
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
      // 413 and 500 carry the words in #flash (render.go fail); other
      // errors are said by link.ts.
      { code: "(400|404|409|413|422|500|503)", swap: true, error: false },
      { code: "[45]..", swap: false, error: true }
    ];
    h.config.scrollIntoViewOnBoost = false;
  }
  function refresh() {
    ringer.update();
    audioSign();
    tick();
    keepFocus();
    padHint();
    showRinging();
  }
  function needsAudio() {
    return $$("#calls [data-call-id]").some((c) => c.dataset.state !== "ringing-in");
  }
  function audioWords() {
    const w = $("#audio-words")?.dataset ?? {};
    const h = $("#audio-holder")?.dataset ?? {};
    const holder = h.holder ?? "";
    switch (audio.state) {
      case "mic-blocked": {
        const ua = navigator.userAgent;
        return { text: (/Firefox\//.test(ua) ? w.blockedFirefox : /Chrom(e|ium)\//.test(ua) ? w.blockedChrome : w.blocked) ?? "", ok: false };
      }
      case "no-mic":
        return { text: w.nomic ?? "", ok: false };
      case "failed":
        return { text: w.failed ?? "", ok: false };
    }
    if (holder === tabID()) {
      const key = audio.state === "connecting" ? "connecting" : h.live === "true" ? "live" : "here";
      return { text: w[key] ?? "", ok: true };
    }
    if (!holder && document.hasFocus() && performance.now() < retakeBound) return { text: w.connecting ?? "", ok: true };
    return { text: (holder ? w.other : w.none) ?? "", ok: false };
  }
  var retakeMs = 1e4;
  var retakeBound = performance.now() + retakeMs;
  function audioSign() {
    const mine = $("#audio-holder")?.dataset.holder === tabID() && audio.state === "ready";
    const calls = needsAudio();
    if (calls) placing = 0;
    audio.need((calls || performance.now() < placing) && (mine || audio.state === "connecting" || audio.state === "live"));
    const { text, ok } = audioWords();
    const el = $("#audio-text");
    if (el) {
      setText(el, text);
      const cls = ok ? "ok" : "warn";
      if (el.className !== cls) el.className = cls;
    }
    const top = $("#take-audio-top");
    if (top && top.hidden !== ok) top.hidden = ok;
    for (const n of $$("#calls .audio-note")) {
      setText(n, ok ? "" : text);
      if (n.hidden !== ok) n.hidden = ok;
    }
  }
  var placing = 0;
  var placeMs = 1e4;
  function place() {
    placing = performance.now() + placeMs;
    setTimeout(audioSign, placeMs + 1);
    void audio.start();
  }
  function guardDial() {
    let anyway = false;
    document.addEventListener("submit", (e) => {
      const form = e.target;
      if (form.id !== "dial-form") return;
      audio.clickAt = performance.now();
      const { text, ok } = audioWords();
      if (ok || anyway) {
        anyway = false;
        if (ok) place();
        return;
      }
      e.preventDefault();
      e.stopPropagation();
      const w = $("#audio-words")?.dataset ?? {};
      const f = $("#flash");
      if (!f) return;
      f.replaceChildren(document.createTextNode((w.noaudio ?? "") + " " + text + " "));
      const take = document.createElement("button");
      take.type = "button";
      take.dataset.takeAudio = "";
      take.textContent = $("#take-audio-top")?.textContent ?? "";
      const go = document.createElement("button");
      go.type = "button";
      go.id = "dial-anyway";
      go.textContent = w.anyway ?? "";
      go.addEventListener("click", () => {
        anyway = true;
        f.replaceChildren();
        form.requestSubmit();
      });
      f.append(take, " ", go);
    }, true);
    document.addEventListener("click", (e) => {
      const b = e.target.closest('[data-action="answer"]');
      if (b && audioWords().ok) {
        audio.clickAt = performance.now();
        place();
      }
    }, true);
    document.addEventListener("htmx:afterRequest", (e) => {
      const d = e.detail;
      if (d?.elt?.id === "dial-form" && !d.successful) {
        placing = 0;
        audioSign();
      }
    });
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
      const el = e.target.closest("[data-key], [data-clear], #redial, #mic-mute, #ring-test, [data-take-audio], #notify-enable, #links-enable");
      if (!el) return;
      const num = $("#number");
      if (el.dataset.key && el.closest("#dial-form") && dialpadKey(el.dataset.key)) {
      } else if (el.dataset.key && num && el.closest("#dial-form")) {
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
      } else if (el.dataset.takeAudio !== void 0) {
        void audio.take();
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
    installLink();
    document.body.dataset.incoming = document.body.dataset.incoming ?? "Incoming call";
    installHotkeys();
    installCallbar();
    dialpad();
    audioControls();
    guardDial();
    new MutationObserver(refresh).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-state", "data-holder", "data-live"] });
    setInterval(tick, 1e3);
    audio.onchange = refresh;
    refresh();
    setTimeout(refresh, retakeMs);
    void audio.open().then(() => devices());
    window.addEventListener("focus", () => void post("/webrtc/focus", { tab: tabID() }).catch(() => void 0));
    window.addEventListener("pagehide", () => {
      if (audio.conn) navigator.sendBeacon("/webrtc/close", new URLSearchParams({ tab: tabID(), conn: audio.conn, csrf: csrf() }));
    });
    document.addEventListener("htmx:afterSettle", () => void devices());
    document.addEventListener("htmx:beforeRequest", (e) => {
      if (e.detail?.elt?.id === "number") return;
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
    document.addEventListener("click", (e) => {
      if (e.target?.closest?.("#audio-play")) void ringer.unhold();
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
