// The AudioWorklet of the fallback audio path (rtc.ts, when the tab's
// RTCPeerConnection cannot connect): it turns the microphone into 20 ms
// frames of 16 kHz 16-bit linear audio for the page's WebSocket, and plays
// the frames the phone sends, resampled to the context's rate. Linear
// interpolation both ways: the phone's codecs are 8 or 16 kHz speech.
declare const sampleRate: number;
declare function registerProcessor(name: string, ctor: unknown): void;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}

const RATE = 16000;
const FRAME = 320; // 20 ms at 16 kHz
const START = 2; // frames queued before playing starts (40 ms)
const MAX = 10; // frames kept at most (200 ms): older ones go

class PCMIO extends AudioWorkletProcessor {
  private step = RATE / sampleRate; // 16 kHz samples per context sample
  private inPos = 0;
  private last = 0;
  private frame = new Int16Array(FRAME);
  private fill = 0;
  private queue: Int16Array[] = [];
  private playing = false;
  private cur: Int16Array | null = null;
  private outPos = 0; // position in cur, in 16 kHz samples (fractional)
  private prev = 0;

  constructor() {
    super();
    this.port.onmessage = (e: MessageEvent) => {
      this.queue.push(new Int16Array(e.data as ArrayBuffer));
      while (this.queue.length > MAX) this.queue.shift();
    };
  }

  process(inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const inp = inputs[0]?.[0];
    if (inp) this.capture(inp);
    const out = outputs[0]?.[0];
    if (out) this.play(out);
    return true;
  }

  // capture picks 16 kHz samples out of the context's rate.
  private capture(inp: Float32Array): void {
    for (let i = 0; i < inp.length; i++) {
      const x = inp[i];
      while (this.inPos < 1) {
        const v = this.last + (x - this.last) * this.inPos;
        this.frame[this.fill++] = Math.max(-32768, Math.min(32767, Math.round(v * 32767)));
        if (this.fill === FRAME) {
          this.port.postMessage(this.frame.buffer, [this.frame.buffer]);
          this.frame = new Int16Array(FRAME);
          this.fill = 0;
        }
        this.inPos += 1 / this.step;
      }
      this.inPos -= 1;
      this.last = x;
    }
  }

  // play spreads the queued 16 kHz frames over the context's samples.
  private play(out: Float32Array): void {
    if (!this.playing && this.queue.length >= START) this.playing = true;
    for (let i = 0; i < out.length; i++) {
      if (!this.cur || this.outPos >= this.cur.length) {
        if (this.cur) this.outPos -= this.cur.length;
        this.cur = this.playing ? this.queue.shift() ?? null : null;
        if (!this.cur) {
          this.playing = false;
          this.outPos = 0;
          out[i] = 0;
          continue;
        }
      }
      const k = Math.floor(this.outPos);
      const frac = this.outPos - k;
      const a = k === 0 ? this.prev : this.cur[k - 1] / 32768;
      const b = this.cur[k] / 32768;
      out[i] = a + (b - a) * frac;
      this.outPos += this.step;
      if (this.outPos >= this.cur.length) this.prev = this.cur[this.cur.length - 1] / 32768;
    }
  }
}

registerProcessor('pcm-io', PCMIO);
