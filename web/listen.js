// Listening to a live call from its page: a WebSocket (/api/outbound/{id}/listen, opened as
// /api/events is, by apiSocket) brings a second of mono 16-bit PCM at 8 kHz at a time; each is
// played through the Web Audio API right after the one before. Read-only: nothing is sent.
// window.__listen keeps what arrived (samples, loudest RMS) for the page's tests.
'use strict';

let listening = null;

function stopListening(view) {
  if (!listening) return;
  listening.socket.close();
  listening.context.close();
  listening = null;
  if (view) { $('#listen', view).textContent = t('listen.start'); $('#listen-status', view).textContent = t('listen.ended'); }
}

function showListening(view, live) {
  $('#listen-panel', view).hidden = !live;
  if (!live && listening && listening.view === view) stopListening(view);
}

function setUpListening(view, id) {
  if (listening) stopListening(null);   // left another call's page
  $('#listen', view).addEventListener('click', () => {
    if (listening) { stopListening(view); return; }
    const context = new AudioContext({ sampleRate: 8000 });
    const side = $('#listen-side', view).value;
    const socket = apiSocket(`/api/outbound/${encodeURIComponent(id)}/listen`, { side });
    socket.binaryType = 'arraybuffer';
    let next = 0;
    window.__listen = { samples: 0, rms: 0 };
    socket.onmessage = (event) => {
      const pcm = new Int16Array(event.data);
      const buffer = context.createBuffer(1, pcm.length, 8000);
      const channel = buffer.getChannelData(0);
      let energy = 0;
      for (let i = 0; i < pcm.length; i += 1) { channel[i] = pcm[i] / 32768; energy += channel[i] * channel[i]; }
      window.__listen.samples += pcm.length;
      window.__listen.rms = Math.max(window.__listen.rms, Math.sqrt(energy / Math.max(1, pcm.length)));
      const source = context.createBufferSource();
      source.buffer = buffer;
      source.connect(context.destination);
      next = Math.max(next, context.currentTime + 0.1);
      source.start(next);
      next += buffer.duration;
    };
    socket.onclose = () => { if (listening && listening.socket === socket) stopListening(view); };
    listening = { socket, context, view };
    $('#listen', view).textContent = t('listen.stop');
    $('#listen-status', view).textContent = t('listen.on');
  });
}
