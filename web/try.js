// "Try it": a call from this page's microphone to the agent, on the server's browser media
// stream (/browser/stream, opened as /api/events is, by apiSocket). The microphone goes out as
// 16 kHz 16-bit PCM (try-worklet.js); the agent's audio comes back as 8 kHz PCM and is played
// through the Web Audio API, one buffer right after the other. A `mark` is echoed once the audio
// before it has played (how the server knows what was heard); a `clear` (the caller talked over
// the agent) stops what is playing and drops what is queued; `pause` and `resume` hold it where it
// is while the server judges the caller's speech over it (words cut it, a cough or "mm-hmm" does not).
// Playback has an AudioContext of its own, so pausing it leaves the microphone running.
// The transcript comes from /api/events.
// window.__try keeps what the page measured (agent audio, the caller's voice, barge-ins: from the
// caller's onset over the agent to the agent's audio going silent here, what silenced it, and how
// much of the agent's audio was still queued then) for its tests.
'use strict';

let trying = null;

function showTry(params) {
  if (trying) stopTrying();
  const view = mount('try-view');
  const template = params.get('template');
  let call = null;
  if (template) call = { template };
  else {
    try { call = JSON.parse(sessionStorage.getItem('vb.try') || 'null'); } catch (error) { call = null; }
  }
  const what = $('#try-what', view);
  if (!call) { what.textContent = t('try.nothing'); $('#try-start', view).hidden = true; return; }
  what.textContent = call.template ? `${t('try.template')}: ${call.template}` : `${call.purpose} — ${(call.questions || []).join(' / ')}`;
  $('#try-start', view).addEventListener('click', () => {
    if (trying) stopTrying(); else startTrying(view, call).catch((error) => fail(view, error.message));
  });
}

function fail(view, message) {
  $('#try-error', view).textContent = message;
  stopTrying();
}

async function startTrying(view, call) {
  $('#try-error', view).textContent = '';
  $('#try-status', view).textContent = t('try.connecting');
  let microphone;
  try {
    microphone = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
  } catch (error) {
    throw new Error(`${t('try.no_mic')} ${error.message}`);
  }
  const context = new AudioContext();
  await context.audioWorklet.addModule('/try-worklet.js');
  const source = context.createMediaStreamSource(microphone);
  const worklet = new AudioWorkletNode(context, 'microphone-16k');
  const mute = context.createGain();
  mute.gain.value = 0;
  source.connect(worklet).connect(mute).connect(context.destination);   // pulled by the graph, heard by nobody
  const player = new AudioContext();
  const agent = player.createAnalyser();   // the agent's voice as played
  agent.fftSize = 512;
  agent.connect(player.destination);

  const socket = apiSocket('/browser/stream');
  trying = { view, socket, context, player, microphone, playing: [], playedOutAt: null, next: 0, marks: [], callID: null, speaking: false };
  const measures = { agentRms: 0, agentSamples: 0, callerSpeech: [], clears: [], silences: [], bargeIns: [], marks: 0 };
  window.__try = measures;
  const state = trying;

  socket.onopen = () => {
    socket.send(JSON.stringify({ event: 'start', start: { media_format: { encoding: 'audio/L16', sample_rate: 16000 }, call } }));
    worklet.port.onmessage = (message) => {
      noteCallerVoice(state, new Int16Array(message.data), measures);
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ event: 'media', media: { payload: bytesToBase64(message.data) } }));
    };
  };
  socket.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.event === 'media') play(state, agent, event.media.payload, measures);
    else if (event.event === 'mark') echoMark(state, event.mark.name, measures);
    else if (event.event === 'clear') clearPlayback(state, measures);
    else if (event.event === 'pause') pausePlayback(state, measures);
    else if (event.event === 'resume') state.player.resume();
    else if (event.event === 'call') connected(state, event.call_id);
    else if (event.event === 'error') $('#try-error', view).textContent = event.message;
  };
  socket.onclose = () => { if (trying === state) stopTrying(); };

  $('#try-start', view).textContent = t('try.hangup');
  $('#try-status', view).textContent = t('try.live');
}

// The caller's voice, frame by frame as it leaves for the server: where it starts over the agent,
// the barge-in is timed from (to the moment the agent's audio went silent on this page).
function noteCallerVoice(state, frame, measures) {
  let energy = 0;
  for (let i = 0; i < frame.length; i += 1) energy += (frame[i] / 32768) ** 2;
  const level = Math.sqrt(energy / frame.length);
  if (!state.speaking && level > 0.02) {
    state.speaking = true;
    measures.callerSpeech.push({ at: performance.now(), agentPlaying: agentSpeaking(state) });
  } else if (state.speaking && level < 0.005) state.speaking = false;
}

// A gap shorter than this in the agent's audio (it came late to a loaded machine) is the agent
// still speaking: a caller who starts talking in it talks over the agent.
const agentGapMs = 300;

function agentSpeaking(state) {
  return state.playing.length > 0 || (state.playedOutAt !== null && performance.now() - state.playedOutAt < agentGapMs);
}

// The agent's audio went silent on the page (`cause`: the server's pause or clear, or what was
// queued played out). A barge-in that started over it ends at a pause or clear; what was queued
// playing out is a gap (audio late on a loaded machine), not the agent stopping.
function agentFellSilent(state, measures, cause) {
  const at = performance.now();
  const queuedMs = Math.max(0, Math.round((state.next - state.player.currentTime) * 1000));
  measures.silences.push({ at, cause });
  if (cause === 'played out') { state.playedOutAt = at; return; }
  state.playedOutAt = null;
  const onset = measures.callerSpeech.filter((s) => s.agentPlaying && s.at <= at && !s.timed).pop();
  if (onset) { onset.timed = true; measures.bargeIns.push({ ms: Math.round(at - onset.at), cause, queuedMs }); }
}

function connected(state, callID) {
  state.callID = callID;
  const report = $('#try-report', state.view);
  report.href = `#/calls/${callID}`;
  report.hidden = false;
  current = { id: callID, refresh: (event) => {
    if (!event || event.outbound_id !== callID || event.type !== 'transcript') return;
    const agentSpoke = event.data.speaker === 'ai';
    const li = el('li', `${agentSpoke ? '🤖' : '🙂'} ${event.data.text}`);
    li.dataset.speaker = agentSpoke ? 'agent' : 'caller';
    $('#try-transcript', state.view).append(li);
  } };
}

// 8 kHz 16-bit PCM from the server, played right after what is already queued.
function play(state, agent, payload, measures) {
  const bytes = Uint8Array.from(atob(payload), (c) => c.charCodeAt(0));
  const pcm = new Int16Array(bytes.buffer, 0, bytes.length >> 1);
  const buffer = state.player.createBuffer(1, pcm.length, 8000);
  const channel = buffer.getChannelData(0);
  let energy = 0;
  for (let i = 0; i < pcm.length; i += 1) { channel[i] = pcm[i] / 32768; energy += channel[i] * channel[i]; }
  measures.agentSamples += pcm.length;
  measures.agentRms = Math.max(measures.agentRms, Math.sqrt(energy / Math.max(1, pcm.length)));
  const node = state.player.createBufferSource();
  node.buffer = buffer;
  node.connect(agent);
  state.next = Math.max(state.next, state.player.currentTime + 0.04);   // 40 ms against the network's jitter
  node.start(state.next);
  state.next += buffer.duration;
  state.playing.push(node);
  state.playedOutAt = null;
  node.onended = () => {
    state.playing = state.playing.filter((n) => n !== node);
    if (state.playing.length === 0 && state.player.state === 'running') agentFellSilent(state, measures, 'played out');
  };
}

// Echoed once everything queued before it has played — on the player's clock, which stands still
// while paused; a clear in between means it never was.
function echoMark(state, name, measures) {
  state.marks.push({ name, at: state.next });
  if (!state.markTimer) state.markTimer = setInterval(() => echoPlayedMarks(state, measures), 20);
}

function echoPlayedMarks(state, measures) {
  while (state.marks.length > 0 && state.marks[0].at <= state.player.currentTime) {
    const { name } = state.marks.shift();
    if (state.socket.readyState !== WebSocket.OPEN) continue;
    state.socket.send(JSON.stringify({ event: 'mark', mark: { name } }));
    measures.marks += 1;
  }
}

function clearPlayback(state, measures) {
  for (const node of state.playing) { try { node.stop(); } catch (error) { /* not started yet */ } }
  measures.clears.push(performance.now());
  agentFellSilent(state, measures, 'clear');   // before the queue is forgotten: what it cut is measured
  state.playing = [];
  state.marks = [];
  state.next = 0;
}

// Held: the agent's audio stops where it is (silent now) and plays on at `resume`, unless a clear
// comes first.
function pausePlayback(state, measures) {
  if (state.player.state !== 'running') return;
  state.player.suspend();
  if (agentSpeaking(state)) agentFellSilent(state, measures, 'pause');
}

function stopTrying() {
  const state = trying;
  if (!state) return;
  trying = null;
  if (state.socket.readyState === WebSocket.OPEN) state.socket.send(JSON.stringify({ event: 'stop' }));
  state.socket.close();
  state.microphone.getTracks().forEach((track) => track.stop());
  clearInterval(state.markTimer);
  state.context.close();
  state.player.close();
  $('#try-start', state.view).textContent = t('try.start');
  $('#try-status', state.view).textContent = t('try.ended');
}
