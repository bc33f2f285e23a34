// The microphone at 16 kHz for "Try it": the AudioContext's rate (usually 48 kHz) averaged down
// to 16 kHz (each output sample the mean of the input samples it stands for: a low-pass that keeps
// speech and removes what would fold back), sent to the page as 20 ms of 16-bit PCM at a time.
'use strict';

class Microphone16k extends AudioWorkletProcessor {
  constructor() {
    super();
    this.step = sampleRate / 16000;   // input samples per output sample
    this.phase = 0;
    this.sum = 0;
    this.count = 0;
    this.frame = new Int16Array(320);
    this.filled = 0;
  }

  process(inputs) {
    const input = inputs[0] && inputs[0][0];
    if (!input) return true;
    for (let i = 0; i < input.length; i += 1) {
      this.sum += input[i];
      this.count += 1;
      this.phase += 1;
      if (this.phase < this.step) continue;
      this.phase -= this.step;
      const value = Math.max(-1, Math.min(1, this.sum / this.count));
      this.sum = 0;
      this.count = 0;
      this.frame[this.filled] = value < 0 ? value * 32768 : value * 32767;
      this.filled += 1;
      if (this.filled === this.frame.length) {
        this.port.postMessage(this.frame.buffer, [this.frame.buffer]);
        this.frame = new Int16Array(320);
        this.filled = 0;
      }
    }
    return true;
  }
}

registerProcessor('microphone-16k', Microphone16k);
