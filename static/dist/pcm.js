"use strict";
(() => {
  // static/src/pcm-worklet.ts
  var RATE = 16e3;
  var FRAME = 320;
  var START = 2;
  var MAX = 10;
  var PCMIO = class extends AudioWorkletProcessor {
    step = RATE / sampleRate;
    // 16 kHz samples per context sample
    inPos = 0;
    last = 0;
    frame = new Int16Array(FRAME);
    fill = 0;
    queue = [];
    playing = false;
    cur = null;
    outPos = 0;
    // position in cur, in 16 kHz samples (fractional)
    prev = 0;
    constructor() {
      super();
      this.port.onmessage = (e) => {
        this.queue.push(new Int16Array(e.data));
        while (this.queue.length > MAX) this.queue.shift();
      };
    }
    process(inputs, outputs) {
      const inp = inputs[0]?.[0];
      if (inp) this.capture(inp);
      const out = outputs[0]?.[0];
      if (out) this.play(out);
      return true;
    }
    // capture picks 16 kHz samples out of the context's rate.
    capture(inp) {
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
    play(out) {
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
  };
  registerProcessor("pcm-io", PCMIO);
})();
