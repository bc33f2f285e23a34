// Statistics charts on the calls page (seed 000 §12): outcomes, each question's answers and calls
// per hour from /api/stats, drawn as inline SVG bars. Every chart's caption is the server's own
// words for what the figure counts. Uses report.js's svg(), app.js's helpers and knowledge.js's
// askedTimes().
'use strict';

const OUTCOME_COLOR = { completed: '#4caf50', no_answer: '#9e9e9e', busy: '#ff9800', rejected: '#e57373', failed: '#c62828', cancelled: '#bdbdbd', voicemail: '#8d6e63', voicemail_left: '#a1887f', screened_out: '#7986cb' };
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

/// The questions this campaign's callers asked that the knowledge base could not answer, grouped
/// as the Knowledge page groups them, with the way there to answer them.
async function openQuestions(campaign, figure) {
  const found = await api(`/api/knowledge-questions?days=365&campaign=${encodeURIComponent(campaign.id)}`);
  const asked = found.groups.reduce((sum, group) => sum + group.count, 0);
  const list = el('ul', null, 'open-question-list');
  list.append(...found.groups.map((group) => el('li', `${group.question} ${askedTimes(group.count)}`)));
  const answer = el('a', t('results.answer_questions'));
  answer.href = '#/knowledge';
  const f = figure(`${t('results.open_questions')}: ${asked}`, list);
  f.append(answer);
  f.dataset.figure = 'open-questions';
  return f;
}

const SENTIMENT_COLOR = { positive: '#4caf50', neutral: '#90a4ae', negative: '#e57373' };

/// A campaign's results, opened on demand (and kept open across refreshes): /api/stats for the
/// campaign — flow outcomes, each flow field's statuses, top answers and mean, the post-call
/// analyses' success rate and sentiment split, and the answers per question.
const openResults = new Set();   // campaign ids
function campaignResults(campaign) {
  const details = el('details', null, 'campaign-results');
  details.append(el('summary', t('results.title')));
  const body = el('div', null, 'results-body');
  const figure = (title, content, caption) => {
    const f = el('figure', null, 'chart');
    f.append(el('h3', title), content);
    if (caption) f.append(el('figcaption', caption, 'muted'));
    return f;
  };
  const load = async () => {
    openResults.add(campaign.id);
    const stats = await api(`/api/stats?campaign=${encodeURIComponent(campaign.id)}`);
    const parts = [];
    const outcomes = Object.entries(stats.flow_outcomes || {}).sort((a, b) => b[1] - a[1]);
    if (outcomes.length) parts.push(figure(t('results.outcomes'), barChart('flow-outcome-chart', outcomes.map(([k, n]) => [k, n, '#5c8fd6', k]), t('results.outcomes'))));
    const analyses = stats.analyses;
    if (analyses && analyses.analysed) {
      const rate = analyses.success_rate;
      const sentiment = Object.entries(SENTIMENT_COLOR).map(([s, color]) => [t('analysis.sentiment.' + s), analyses.sentiment[s] || 0, color, s]);
      const f = figure(`${t('results.success')}: ${rate.value}% (${rate.numerator}/${rate.denominator})`, barChart('sentiment-chart', sentiment, t('results.sentiment')), rate.counts);
      f.dataset.figure = 'analysis';
      parts.push(f);
    }
    if (stats.fields && stats.fields.length) {
      // One line per field, so that a phone's width holds it: statuses, top answers, mean.
      const list = el('ul', null, 'field-list');
      list.append(...stats.fields.map((f) => {
        const li = el('li');
        li.dataset.field = f.field;
        const top = Object.entries(f.values).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 5).map(([v, n]) => `${v} ×${n}`).join(', ');
        const statuses = ['answered', 'refused', 'unclear'].map((k) => `${t('status.' + k)} ${f.statuses[k] || 0}`).join(' · ');
        li.append(el('strong', `${f.field} (${f.kind})`), el('span', statuses, 'field-statuses'),
                  el('span', top + (f.other ? ` … +${f.other}` : ''), 'field-top'));
        if (f.mean != null) li.append(el('span', `${t('results.mean')} ${Math.round(f.mean * 10) / 10}`, 'field-mean'));
        return li;
      }));
      parts.push(figure(t('results.fields'), list));
    }
    if (stats.questions.length) parts.push(figure(t('charts.questions'), questionChart(stats.questions), t('charts.questions_count')));
    if (stats.open_questions?.value > 0) parts.push(await openQuestions(campaign, figure));
    if (!parts.length) parts.push(el('p', t('results.none'), 'muted'));
    body.replaceChildren(...parts);
  };
  onToggle(details, () => load().catch(alertError), () => openResults.delete(campaign.id));
  if (openResults.has(campaign.id)) details.open = true;
  details.append(body);
  return details;
}
