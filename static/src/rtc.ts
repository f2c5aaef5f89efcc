// The tab's audio: one RTCPeerConnection to the phone's audio bridge over
// loopback, the microphone (with volume and mute), the speaker (device and
// volume) and level meters.
import { post, tabID, $, AudioSettings } from './util';

export class Audio {
  pc: RTCPeerConnection | null = null;
  mic: MediaStream | null = null;
  ctx: AudioContext | null = null;
  micGain: GainNode | null = null;
  micLevel: AnalyserNode | null = null;
  spkLevel: AnalyserNode | null = null;
  sender: RTCRtpSender | null = null;
  speaker = new window.Audio();
  muted = false;
  state = 'idle';
  private retry = 0;

  constructor(public settings: AudioSettings) {
    this.speaker.autoplay = true;
  }

  private context(): AudioContext {
    if (!this.ctx) this.ctx = new AudioContext();
    return this.ctx;
  }

  // micTrack opens the chosen microphone and runs it through a gain (volume)
  // and an analyser (level meter).
  async micTrack(): Promise<MediaStreamTrack> {
    this.mic?.getTracks().forEach((t) => t.stop());
    const id = this.settings.microphone;
    this.mic = await navigator.mediaDevices.getUserMedia({
      audio: id ? { deviceId: { exact: id }, echoCancellation: true } : { echoCancellation: true },
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
  async connect(): Promise<void> {
    this.close();
    this.state = 'connecting';
    try {
      const track = await this.micTrack();
      const pc = new RTCPeerConnection({ iceServers: [] });
      this.pc = pc;
      this.sender = pc.addTrack(track, new MediaStream([track]));
      pc.ontrack = (e) => this.play(e.streams[0] ?? new MediaStream([e.track]));
      pc.onconnectionstatechange = () => {
        if (pc.connectionState === 'failed') this.later();
        // Tell the phone this tab is attached now (the sign in every tab follows).
        if (pc.connectionState === 'connected') void post('/webrtc/focus', { tab: tabID() }).catch(() => undefined);
      };
      await pc.setLocalDescription(await pc.createOffer());
      await gathered(pc, 3000);
      const res = await post('/webrtc/offer', { tab: tabID(), sdp: pc.localDescription?.sdp ?? '' });
      if (!res.ok) throw new Error('offer refused: ' + res.status);
      const ans = await res.json();
      await pc.setRemoteDescription({ type: 'answer', sdp: ans.sdp });
      this.state = 'connected';
      this.retry = 0;
    } catch (e) {
      console.warn('softphone audio:', e);
      this.state = 'failed';
      this.later();
    }
  }

  private later(): void {
    if (this.retry > 5) return;
    this.retry++;
    setTimeout(() => void this.connect(), 2000 * this.retry);
  }

  close(): void {
    this.pc?.close();
    this.pc = null;
  }

  private play(stream: MediaStream): void {
    this.speaker.srcObject = stream;
    this.speaker.volume = this.settings.speaker_volume / 100;
    void this.applySpeaker();
    const ctx = this.context();
    this.spkLevel = ctx.createAnalyser();
    ctx.createMediaStreamSource(stream).connect(this.spkLevel);
    void this.speaker.play().catch(() => undefined);
  }

  async applySpeaker(): Promise<void> {
    const el = this.speaker as HTMLAudioElement & { setSinkId?: (id: string) => Promise<void> };
    if (el.setSinkId) await el.setSinkId(this.settings.speaker).catch(() => undefined);
  }

  async switchMic(): Promise<void> {
    if (!this.sender) return;
    await this.sender.replaceTrack(await this.micTrack());
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

  async focus(): Promise<void> {
    if (!this.pc || this.pc.connectionState === 'closed' || this.pc.connectionState === 'failed') {
      await this.connect();
      return;
    }
    await post('/webrtc/focus', { tab: tabID() }).catch(() => undefined);
  }

  // meters shows the microphone and speaker levels while the page is open.
  meters(): void {
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
      if (m) m.value = level(this.micLevel);
      if (s) s.value = level(this.spkLevel);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }
}

// gathered waits for ICE gathering to finish (loopback: at once), at most ms.
function gathered(pc: RTCPeerConnection, ms: number): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    pc.addEventListener('icegatheringstatechange', () => {
      if (pc.iceGatheringState === 'complete') { clearTimeout(t); resolve(); }
    });
  });
}
