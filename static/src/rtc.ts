// The tab's audio. The page keeps one WebSocket to the phone (/audio/ws):
// its life is the page's life, and over it the page says what state its
// audio is in (ready, microphone blocked, no microphone, failed). The
// microphone is opened only when a call needs it (dialling, answering, a
// call placed elsewhere while this tab holds the audio) and closed after the
// last call ends; between calls no packet passes between tab and phone.
// During a call the audio goes over an RTCPeerConnection to the phone's
// bridge; when that cannot connect (a machine with loopback only: default
// Chromium and Firefox gather no candidate there), over the WebSocket as
// 16 kHz frames through an AudioWorklet (pcm-worklet.ts).
import { post, tabID, $, AudioSettings } from './util';

// Own states of this tab's audio. 'ready' and 'live' can carry a call.
export type TabState = 'ready' | 'connecting' | 'live' | 'mic-blocked' | 'no-mic' | 'failed';

const ICE_WAIT = 3000; // ms for the peer connection to connect before the fallback

export class Audio {
  pc: RTCPeerConnection | null = null;
  mic: MediaStream | null = null;
  ctx: AudioContext | null = null;
  micGain: GainNode | null = null;
  micSrc: MediaStreamAudioSourceNode | null = null;
  micLevel: AnalyserNode | null = null;
  spkLevel: AnalyserNode | null = null;
  sender: RTCRtpSender | null = null;
  speaker = new window.Audio();
  muted = false;
  state: TabState = 'ready';
  path: '' | 'webrtc' | 'pcm' = '';
  out: AudioNode | null = null; // what the tab plays now (tests tap it)
  // held: during a call the browser holds the page's sound (the autoplay
  // policy of a page never clicked, e.g. a call placed through the API);
  // the header shows "Click to hear the call" (#audio-play) until a click.
  held = false;
  // constraints are added to the microphone's (echoCancellation: true);
  // only the echo test (server/web/e2e/echo.mjs) sets them, to measure what
  // the canceller removes.
  constraints: MediaTrackConstraints = {};
  // Figures for the benchmark: when the person clicked and when the
  // microphone was live (performance.now()).
  clickAt = 0;
  micAt = 0;
  // conn names the WebRTC connection this page made (the offer's answer);
  // the close beacon sends it back, so a reloaded page's old beacon, which
  // may arrive after the new page connected with the same tab id, closes
  // only the old page's connection.
  conn = '';
  onchange: () => void = () => undefined;
  private ws: WebSocket | null = null;
  private wsRetry = 0;
  private node: AudioWorkletNode | null = null;
  private active = false; // a call needs the audio now
  private gen = 0; // start/stop generation: a late promise of an old start is dropped
  private metering = false;
  private processed: MediaStreamTrack | null = null; // the microphone through gain (mute, volume)
  private playBlocked = false; // the speaker element's play() was refused (autoplay)

  constructor(public settings: AudioSettings) {
    this.speaker.autoplay = true;
    // The meters stop while the page is hidden; back in view during a call, again.
    document.addEventListener('visibilitychange', () => { if (!document.hidden && this.active) this.meters(); });
    // The click that lets the page play (a user activation, as the
    // autoplay policy asks).
    document.addEventListener('click', (e) => {
      if ((e.target as HTMLElement | null)?.closest?.('#audio-play')) void this.unhold();
    });
  }

  private context(): AudioContext {
    if (!this.ctx) {
      this.ctx = new AudioContext();
      this.ctx.addEventListener('statechange', () => this.checkHeld());
    }
    return this.ctx;
  }

  // checkHeld shows or hides the header's "Click to hear the call": while
  // a call has the audio and the browser holds the AudioContext (Chromium's
  // default autoplay policy; Firefox lets a page that captures the
  // microphone play) or refused to play the call. The mark is on <html>,
  // which boosted navigation keeps (the CSS of #audio-play reads it).
  private checkHeld(): void {
    const running = this.ctx?.state === 'running';
    // WebRTC got the microphone's own track while the context was not
    // running (start); once it runs, the track through gain again (mute and
    // volume apply).
    if (running && this.path === 'webrtc' && this.sender && this.processed && this.sender.track !== this.processed) {
      void this.sender.replaceTrack(this.processed).catch(() => undefined);
    }
    const held = this.active && this.path !== '' && (!running || this.playBlocked);
    if (held === this.held) return;
    this.held = held;
    if (held) document.documentElement.dataset.audioHeld = '';
    else delete document.documentElement.dataset.audioHeld;
    this.onchange();
  }

  // unhold is the click on "Click to hear the call": the context and the
  // speaker may start now.
  private async unhold(): Promise<void> {
    await this.ctx?.resume().catch(() => undefined);
    if (this.speaker.srcObject) {
      await this.speaker.play().then(() => { this.playBlocked = false; }).catch(() => undefined);
    } else this.playBlocked = false;
    this.checkHeld();
  }

  // open connects the page's socket and reports what is known before any
  // call: a microphone the browser already blocks, or none at all.
  async open(): Promise<void> {
    this.state = await this.precheck();
    this.socket();
    this.onchange();
  }

  private async precheck(): Promise<TabState> {
    try {
      const p = await navigator.permissions.query({ name: 'microphone' as PermissionName });
      if (p.state === 'denied') return 'mic-blocked';
    } catch { /* not every browser answers for the microphone */ }
    try {
      const list = await navigator.mediaDevices.enumerateDevices();
      if (!list.some((d) => d.kind === 'audioinput')) return 'no-mic';
    } catch { /* no device list: getUserMedia will tell */ }
    return 'ready';
  }

  private socket(): void {
    const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/audio/ws?tab=' + encodeURIComponent(tabID()));
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    ws.onopen = () => {
      this.wsRetry = 0;
      this.report(document.hasFocus()); // a page loaded (or reloaded) in front takes the audio
      if (this.path === 'pcm') this.send({ audio: 'pcm' });
    };
    ws.onmessage = (e) => { if (e.data instanceof ArrayBuffer) this.node?.port.postMessage(e.data, [e.data]); };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.wsRetry = Math.min(this.wsRetry + 1, 10);
      setTimeout(() => this.socket(), 500 * this.wsRetry);
    };
  }

  private send(m: unknown): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(m));
  }

  // report tells the phone this tab's state (connecting and live count as
  // ready), and with focus that this tab takes the audio.
  private report(focus = false): void {
    const s = this.state === 'connecting' || this.state === 'live' ? 'ready' : this.state;
    this.send(focus ? { state: s, focus: true } : { state: s });
  }

  private set(s: TabState): void {
    if (this.state === s) return;
    this.state = s;
    this.report();
    this.onchange();
  }

  // need is told by the page whether a call needs this tab's audio now.
  need(on: boolean): void {
    if (on && !this.active) void this.start();
    if (!on && this.active) this.stop();
  }

  // start opens the microphone and connects the audio for a call.
  async start(): Promise<void> {
    if (this.active) return;
    this.active = true;
    const gen = ++this.gen;
    this.set('connecting');
    let track: MediaStreamTrack;
    try {
      track = await this.micTrack(gen);
    } catch (e) {
      if (e === STALE || gen !== this.gen) return; // stopped meanwhile: micTrack closed what it opened
      this.active = false;
      const n = (e as DOMException)?.name;
      this.set(n === 'NotAllowedError' || n === 'SecurityError' ? 'mic-blocked' : n === 'NotFoundError' || n === 'OverconstrainedError' ? 'no-mic' : 'failed');
      return;
    }
    if (gen !== this.gen) return;
    this.processed = track;
    // A page never clicked (a call placed through the API) may have its
    // AudioContext held by the autoplay policy: the processed track would
    // carry nothing, so WebRTC gets the microphone's own track.
    const raw = this.mic?.getAudioTracks()[0];
    if (this.ctx?.state !== 'running' && raw) track = raw;
    if (await this.webrtc(track, gen)) {
      if (gen === this.gen) { this.meters(); this.checkHeld(); }
      return;
    }
    if (gen !== this.gen) return;
    this.closePC();
    try {
      await this.fallback();
      if (gen !== this.gen) return;
      this.path = 'pcm';
      this.send({ audio: 'pcm' });
      this.set('live');
      this.meters();
      this.checkHeld();
    } catch (e) {
      console.warn('softphone audio fallback:', e);
      this.stop();
      this.set('failed');
    }
  }

  // stop closes the connection and the microphone (the last call ended).
  stop(): void {
    this.gen++;
    this.active = false;
    this.closePC();
    if (this.path === 'pcm') this.send({ audio: 'off' });
    this.path = '';
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
    // The level meters rest at once: their frame loop zeroes them only at
    // its next frame, which a hidden page does not get (they kept the last
    // levels; browsers.mjs read them still moving once, firefox/lan).
    for (const sel of ['#level-mic', '#level-speaker']) {
      const m = $(sel) as HTMLMeterElement | null;
      if (m) m.value = 0;
    }
    this.checkHeld();
    if (this.state === 'connecting' || this.state === 'live') this.set('ready');
  }

  // micTrack opens the chosen microphone (echo cancellation on) and runs it
  // through a gain (volume, mute) and an analyser (level meter).
  // With gen (start), a start stopped while the browser opened the
  // microphone closes it again and throws STALE: the call that wanted it
  // ended, and the microphone stayed open (the browser's recording sign)
  // until the next call (browsers.mjs, section 7b).
  async micTrack(gen?: number): Promise<MediaStreamTrack> {
    this.mic?.getTracks().forEach((t) => t.stop());
    this.unchain();
    const id = this.settings.microphone;
    const ctx = this.context(); // its audio device starts while the microphone opens
    void ctx.resume();
    const mic = await navigator.mediaDevices.getUserMedia({
      audio: { ...(id ? { deviceId: { exact: id } } : {}), echoCancellation: true, ...this.constraints },
    });
    if (gen !== undefined && gen !== this.gen) {
      mic.getTracks().forEach((t) => t.stop());
      throw STALE;
    }
    this.mic = mic;
    this.micAt = performance.now(); // the microphone is live (the browser shows its sign)
    // Again now: Chromium's default autoplay policy holds the context of a
    // page never clicked (a call placed through the API) but lets a page
    // that captures the microphone play; a resume asked before the capture
    // stays pending there. Firefox allows it either way.
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
  private unchain(): void {
    this.micSrc?.disconnect();
    this.micGain?.disconnect();
    this.micSrc = null;
  }

  // webrtc offers the microphone to the bridge and waits for ICE; false
  // when it did not connect (no candidate, failed, or not within ICE_WAIT).
  private async webrtc(track: MediaStreamTrack, gen: number): Promise<boolean> {
    try {
      const pc = new RTCPeerConnection({ iceServers: [] });
      this.pc = pc;
      this.sender = pc.addTrack(track, new MediaStream([track]));
      pc.ontrack = (e) => this.play(e.streams[0] ?? new MediaStream([e.track]));
      await pc.setLocalDescription(await pc.createOffer());
      await gathered(pc, 3000);
      // The call ended while the browser gathered: stop() closed pc, so no
      // gathering event came and gathered waited out its 3 s. No offer
      // then: the bridge gives the audio to the tab that offers, and would
      // take it from the tab that holds it by now (browsers.mjs 7b; in
      // section 8 the strict page heard 8 s of silence once).
      if (gen !== this.gen) return false;
      const sdp = pc.localDescription?.sdp ?? '';
      if (!/^a=candidate:/m.test(sdp)) return false; // loopback only: nothing to pair
      const res = await post('/webrtc/offer', { tab: tabID(), sdp });
      if (!res.ok) return false;
      const ans = await res.json();
      this.conn = typeof ans.conn === 'string' ? ans.conn : ''; // the server made it, for this page
      if (gen !== this.gen) return false;
      await pc.setRemoteDescription({ type: 'answer', sdp: ans.sdp });
      const ok = await connected(pc, ICE_WAIT);
      if (!ok || gen !== this.gen) return false;
      this.path = 'webrtc';
      this.set('live');
      pc.onconnectionstatechange = () => {
        if (pc.connectionState === 'failed' && this.pc === pc && this.active) {
          this.stop();
          void this.start(); // try again (the fallback if ICE fails again)
        }
      };
      return true;
    } catch (e) {
      console.warn('softphone audio:', e);
      return false;
    }
  }

  // fallback carries the call over the page's WebSocket through the worklet.
  private async fallback(): Promise<void> {
    const ctx = this.context();
    await ctx.audioWorklet.addModule('/static/dist/pcm.js');
    const node = new AudioWorkletNode(ctx, 'pcm-io', { numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1] });
    node.port.onmessage = (e) => { if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(e.data as ArrayBuffer); };
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

  private closePC(): void {
    this.pc?.close();
    this.pc = null;
    this.sender = null;
  }

  close(): void { this.stop(); }

  private play(stream: MediaStream): void {
    this.speaker.srcObject = stream;
    this.speaker.volume = this.settings.speaker_volume / 100;
    void this.applySpeaker();
    const ctx = this.context();
    this.spkLevel = ctx.createAnalyser();
    const src = ctx.createMediaStreamSource(stream);
    src.connect(this.spkLevel);
    this.out = src;
    this.speaker.play().then(() => { this.playBlocked = false; }, (e: unknown) => {
      if ((e as DOMException)?.name === 'NotAllowedError') this.playBlocked = true; // autoplay: wait for a click
    }).finally(() => this.checkHeld());
  }

  async applySpeaker(): Promise<void> {
    const el = this.speaker as HTMLAudioElement & { setSinkId?: (id: string) => Promise<void> };
    if (el.setSinkId) await el.setSinkId(this.settings.speaker).catch(() => undefined);
  }

  // switchMic opens the newly chosen microphone for the call under way.
  // With the start's generation: a call that ended while the browser opened
  // it closes it again (it stayed open, the browser's recording sign, until
  // the next call).
  async switchMic(): Promise<void> {
    if (!this.active) return;
    const gen = this.gen;
    try {
      if (this.path === 'webrtc' && this.sender) {
        this.processed = await this.micTrack(gen);
        await this.sender.replaceTrack(this.held ? this.mic?.getAudioTracks()[0] ?? this.processed : this.processed);
      }
      else if (this.path === 'pcm') { await this.micTrack(gen); if (this.node) this.micGain?.connect(this.node); }
    } catch (e) {
      if (e !== STALE) console.warn('softphone microphone:', e);
    }
  }

  setMuted(m: boolean): void {
    this.muted = m;
    if (this.micGain) this.micGain.gain.value = m ? 0 : this.settings.mic_volume / 100;
  }

  setVolume(name: string, v: number): void {
    if (name === 'mic_volume') { this.settings.mic_volume = v; this.setMuted(this.muted); }
    if (name === 'speaker_volume') { this.settings.speaker_volume = v; this.speaker.volume = v / 100; }
    if (name === 'ringer_volume') this.settings.ringer_volume = v;
  }

  // take gives the audio to this tab (focus, "Use this tab"); a tab whose
  // microphone was blocked or missing, or whose audio failed, checks again.
  async take(): Promise<void> {
    if (this.state === 'mic-blocked' || this.state === 'no-mic' || this.state === 'failed') {
      const s = await this.precheck();
      this.state = '' as TabState; // report again even when unchanged
      this.set(s);
    }
    await post('/webrtc/focus', { tab: tabID() }).catch(() => undefined);
  }

  // meters shows the microphone and speaker levels while a call has the
  // audio and the page is visible; requestAnimationFrame stops with either.
  meters(): void {
    if (this.metering) return;
    this.metering = true;
    const buf = new Uint8Array(256);
    const level = (a: AnalyserNode | null): number => {
      if (!a) return 0;
      a.getByteTimeDomainData(buf);
      let peak = 0;
      for (const v of buf) peak = Math.max(peak, Math.abs(v - 128) / 128);
      return peak;
    };
    const tick = () => {
      const m = $('#level-mic') as HTMLMeterElement | null;
      const s = $('#level-speaker') as HTMLMeterElement | null;
      if (!this.active || document.hidden) {
        if (m) m.value = 0;
        if (s) s.value = 0;
        this.metering = false;
        return;
      }
      if (m) m.value = level(this.micLevel);
      if (s) s.value = level(this.spkLevel);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }
}

// STALE is thrown by micTrack for a start that was stopped meanwhile.
const STALE = new Error('stale start');

// gathered waits for ICE gathering to finish (host candidates only: at
// once), at most ms.
function gathered(pc: RTCPeerConnection, ms: number): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    pc.addEventListener('icegatheringstatechange', () => {
      if (pc.iceGatheringState === 'complete') { clearTimeout(t); resolve(); }
    });
  });
}

// connected waits for the connection (true) or its failure or ms (false):
// Chromium never fails a connection without candidate pairs on its own.
function connected(pc: RTCPeerConnection, ms: number): Promise<boolean> {
  if (pc.connectionState === 'connected') return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    const on = () => {
      if (pc.connectionState === 'connected') { clearTimeout(t); resolve(true); }
      if (pc.connectionState === 'failed' || pc.connectionState === 'closed') { clearTimeout(t); resolve(false); }
    };
    pc.addEventListener('connectionstatechange', on);
  });
}
