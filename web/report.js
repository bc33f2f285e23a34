// The call's report on its detail page: a per-turn timeline drawn as inline SVG (the end of
// the caller's speech at 0 ms, then end of turn decided → transcript → reply → first audio →
// first frame on the wire; a step that ended before the one drawn before it is left out, as in
// the trace), interruptions, the estimated cost, and every pipeline stage's figures.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const STEPS = [
  ['turn_ended_ms', 'report.step.wait', '#9aa5b1'],
  ['transcript_ms', 'report.step.listen', '#7aa7e0'],
  ['reply_started_ms', 'report.step.think', '#e0b04f'],
  ['first_audio_ms', 'report.step.speak', '#8cc084'],
  ['first_frame_ms', 'report.step.send', '#b68cd9'],
];

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function turnTimeline(turns) {
  const width = 600, row = 26, left = 46, right = 70, top = 22;
  const longest = Math.max(100, ...turns.map((turn) => Math.max(...STEPS.map(([key]) => turn[key] || 0))));
  const scale = (width - left - right) / longest;
  const chart = svg('svg', { viewBox: `0 0 ${width} ${top + row * turns.length + 8}`, role: 'img', id: 'turn-chart', 'aria-label': t('report.turns') });
  STEPS.forEach(([, label, color], n) => {
    chart.append(svg('rect', { x: left + n * 108, y: 4, width: 10, height: 10, fill: color }));
    chart.append(svg('text', { x: left + n * 108 + 14, y: 13, 'font-size': 11 }, t(label)));
  });
  turns.forEach((turn, index) => {
    const y = top + index * row;
    const group = svg('g', { class: 'turn', 'data-turn': turn.turn });
    group.append(svg('text', { x: 0, y: y + 14, 'font-size': 11 }, `#${turn.turn}`));
    let start = 0;
    for (const [key, label, color] of STEPS) {
      const end = turn[key];
      if (end === undefined || end === null || end < start) continue;
      const bar = svg('rect', { x: left + start * scale, y: y + 3, width: Math.max(1, (end - start) * scale), height: row - 8, fill: color, class: 'step', 'data-step': key });
      bar.append(svg('title', {}, `${t(label)}: ${start}–${end} ms`));
      group.append(bar);
      start = Math.max(start, end);
    }
    const note = turn.interrupted ? ` ✂ ${turn.heard_ms ?? 0}/${turn.generated_ms ?? 0} ms` : '';
    group.append(svg('text', { x: left + start * scale + 4, y: y + 14, 'font-size': 11 }, `${turn.first_audio_ms ?? '—'} ms${note}`));
    chart.append(group);
  });
  return chart;
}

function renderReport(view, report) {
  const turns = report.turns || [];
  $('#turns', view).replaceChildren(turns.length ? turnTimeline(turns) : el('p', t('report.no_turns'), 'muted'));
  const cost = report.cost;
  const parts = ['telephony', 'stt', 'tts', 'llm', 'realtime'].filter((k) => cost[k] > 0).map((k) => `${k} ${cost[k].toFixed(4)}`);
  $('#cost', view).textContent = `${t('report.cost')}: ${cost.total.toFixed(4)} ${cost.currency}` + (parts.length ? ` (${parts.join(', ')})` : '');
  const cuts = (report.interruptions || []).map((cut) => `${cut.heard_ms}/${cut.generated_ms} ms`);
  $('#interruptions', view).textContent = `${t('report.interruptions')}: ${cuts.length}` + (cuts.length ? ` (${t('report.heard')} ${cuts.join(', ')})` : '')
    + (report.tones.length ? ` · ${t('report.tones')}: ${report.tones.join(', ')}` : '');
  $('#stages', view).replaceChildren(...report.stages.map((s) => {
    const tr = el('tr');
    const perFrame = s.timed_frames ? (s.processing_ns / s.timed_frames / 1000).toFixed(2) : '—';
    tr.append(el('td', s.side), el('td', s.stage), el('td', s.frames_in), el('td', s.frames_out), el('td', s.drops), el('td', s.queue_high_water || '—'), el('td', perFrame));
    if (s.drops > 0) tr.className = 'dropped';
    return tr;
  }));
}
