// Statistics charts on the calls page (seed 000 §12): outcomes, each question's answers and calls
// per hour from /api/stats, drawn as inline SVG bars. Every chart's caption is the server's own
// words for what the figure counts. Uses report.js's svg() and app.js's helpers.
'use strict';

const OUTCOME_COLOR = { completed: '#4caf50', no_answer: '#9e9e9e', busy: '#ff9800', rejected: '#e57373', failed: '#c62828', cancelled: '#bdbdbd', voicemail: '#8d6e63', voicemail_left: '#a1887f' };
const ANSWER_COLOR = { answered: '#4caf50', unclear: '#ffb300', refused: '#e57373', pending: '#90a4ae', not_asked: '#cfd8dc' };

/// Horizontal bars, one row per [label, value, color, key]; values written after the bars.
function barChart(id, rows, title) {
  const width = 320, row = 22, left = 110, right = 40;
  const most = Math.max(1, ...rows.map((r) => r[1]));
  const chart = svg('svg', { viewBox: `0 0 ${width} ${row * rows.length + 4}`, role: 'img', id, 'aria-label': title });
  rows.forEach(([label, value, color, key], index) => {
    const y = index * row;
    const group = svg('g', { class: 'bar', 'data-key': key, 'data-value': value });
    group.append(svg('text', { x: 0, y: y + 15, 'font-size': 11 }, label));
    group.append(svg('rect', { x: left, y: y + 4, width: Math.max(value ? 2 : 0, (width - left - right) * value / most), height: row - 8, fill: color }));
    group.append(svg('text', { x: width - right + 6, y: y + 15, 'font-size': 11 }, String(value)));
    chart.append(group);
  });
  return chart;
}

/// One stacked bar per question: answered / unclear / refused / pending / not asked, yes/no noted.
function questionChart(questions) {
  const width = 320, row = 40;
  const chart = svg('svg', { viewBox: `0 0 ${width} ${row * questions.length + 4}`, role: 'img', id: 'question-chart', 'aria-label': t('charts.questions') });
  questions.forEach((q, index) => {
    const y = index * row;
    const group = svg('g', { class: 'question', 'data-question': q.question });
    const total = Object.values(q.statuses).reduce((a, b) => a + b, 0) || 1;
    const split = q.yes + q.no ? ` (${t('charts.yes')} ${q.yes} · ${t('charts.no')} ${q.no})` : '';
    group.append(svg('text', { x: 0, y: y + 12, 'font-size': 11 }, q.question + split));
    let x = 0;
    for (const [status, color] of Object.entries(ANSWER_COLOR)) {
      const n = q.statuses[status] || 0;
      if (!n) continue;
      const part = svg('rect', { x, y: y + 18, width: width * n / total, height: 14, fill: color, 'data-status': status, 'data-count': n });
      part.append(svg('title', {}, `${t('status.' + status)}: ${n}`));
      group.append(part);
      x += width * n / total;
    }
    chart.append(group);
  });
  return chart;
}

async function renderCharts(view) {
  const section = $('#charts', view);
  if (!section) return;
  const stats = await api('/api/stats');
  const outcomes = Object.entries(OUTCOME_COLOR).map(([state, color]) => [t('state.' + state), stats.outcomes[state] || 0, color, state]);
  const hours = stats.calls_per_hour.slice(-12).map((h) => [new Date(h.hour).toLocaleTimeString(lang === 'ko' ? 'ko-KR' : 'en-GB', { hour: '2-digit', minute: '2-digit' }), h.calls, '#5c8fd6', h.hour]);
  const figure = (title, chart, caption) => {
    const f = el('figure', null, 'chart');
    f.append(el('h3', title), chart, el('figcaption', caption, 'muted'));
    return f;
  };
  section.replaceChildren(
    figure(`${t('stats.success_rate')}: ${stats.success_rate.value}% (${stats.success_rate.numerator}/${stats.success_rate.denominator})`,
           barChart('outcome-chart', outcomes, t('charts.outcomes')), stats.success_rate.counts + ' — ' + stats.outcomes_count),
    figure(t('charts.questions'), questionChart(stats.questions), t('charts.questions_count')),
    figure(t('charts.per_hour'), barChart('hour-chart', hours, t('charts.per_hour')), `${t('charts.talk')}: ${stats.average_duration_seconds.value}${t('seconds')} — ${stats.average_duration_seconds.counts}`));
}
