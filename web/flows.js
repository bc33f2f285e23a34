// Flows on the dashboard: a template's flow drawn as inline SVG (steps in layers from the start,
// edges with their conditions; the path a call took highlighted on its page), the flow editor's
// server-side errors listed one per line, and a call's fields, outcome and post-call analysis.
// Uses report.js's svg() and app.js's helpers.
'use strict';

const STEP_KINDS = ['ask', 'say', 'branch', 'transfer', 'end'];

function stepKind(step) { return STEP_KINDS.find((k) => k in step) || (step.outcome ? 'end' : '?'); }

/// Each step's exits with a short label: next, a branch case, default, after_limit.
function stepExits(step) {
  const exits = [];
  if (step.next) exits.push([step.next, '']);
  (step.branch || []).forEach((c) => {
    const test = c.equals !== undefined ? `= ${c.equals}` : c.one_of ? `∈ ${c.one_of.join('/')}` : c.is ? `is ${c.is}`
      : [c.min !== undefined ? `≥ ${c.min}` : '', c.max !== undefined ? `≤ ${c.max}` : ''].filter(Boolean).join(' ');
    exits.push([c.next, `${c.field} ${test}`]);
  });
  if (step.default) exits.push([step.default, t('flow.otherwise')]);
  if (step.after_limit) exits.push([step.after_limit, t('flow.after_limit')]);
  return exits;
}

/// The flow as an SVG graph: each step's layer is its distance from the start; `path` (a call's
/// steps in order) marks the nodes and edges it went through.
function flowGraph(flow, path = []) {
  const byID = new Map(flow.steps.map((s) => [s.id, s]));
  const depth = new Map([[flow.start, 0]]);
  const queue = [flow.start];
  while (queue.length) {
    const id = queue.shift();
    for (const [next] of stepExits(byID.get(id) || {})) {
      if (byID.has(next) && !depth.has(next)) { depth.set(next, depth.get(id) + 1); queue.push(next); }
    }
  }
  const layers = [];
  for (const step of flow.steps) { const d = depth.get(step.id) ?? layers.length; (layers[d] ||= []).push(step.id); }
  const boxW = 130, boxH = 38, gapX = 24, gapY = 46;
  const width = Math.max(...layers.map((l) => l.length)) * (boxW + gapX) + gapX;
  const height = layers.length * (boxH + gapY) + gapY;
  const place = new Map();
  layers.forEach((layer, d) => layer.forEach((id, i) => {
    const offset = (width - layer.length * (boxW + gapX) + gapX) / 2;
    place.set(id, { x: offset + i * (boxW + gapX), y: gapY / 2 + d * (boxH + gapY) });
  }));
  const taken = new Set(path);
  const takenEdges = new Set(path.slice(1).map((id, i) => `${path[i]}→${id}`));
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'flow-graph', 'aria-label': t('flow.graph') });
  chart.append(svg('defs', {}));
  chart.firstChild.append(svg('marker', { id: 'arrow', viewBox: '0 0 8 8', refX: 8, refY: 4, markerWidth: 8, markerHeight: 8, markerUnits: 'userSpaceOnUse', orient: 'auto' }));
  chart.firstChild.firstChild.append(svg('path', { d: 'M0,0 L8,4 L0,8 z', fill: '#667' }));
  for (const step of flow.steps) {
    const from = place.get(step.id);
    for (const [next, label] of stepExits(step)) {
      const to = place.get(next);
      if (!from || !to) continue;
      let x1 = from.x + boxW / 2, y1 = from.y + boxH, x2 = to.x + boxW / 2, y2 = to.y;
      let d = `M${x1},${y1} L${x2},${y2}`;
      if (to.y === from.y) {   // the same layer: side to side
        const right = to.x > from.x;
        x1 = right ? from.x + boxW : from.x; x2 = right ? to.x : to.x + boxW; y1 = y2 = from.y + boxH / 2;
        d = `M${x1},${y1} L${x2},${y2}`;
      } else if (to.y < from.y) {   // a loop back up: drawn beside the boxes
        d = `M${from.x + boxW},${from.y + boxH / 2} C${from.x + boxW + 40},${from.y} ${to.x + boxW + 40},${to.y + boxH} ${to.x + boxW},${to.y + boxH / 2}`;
      }
      const edge = svg('path', { d, class: 'edge' + (takenEdges.has(`${step.id}→${next}`) ? ' taken' : ''), 'marker-end': 'url(#arrow)', fill: 'none',
                                 'data-from': step.id, 'data-to': next });
      chart.append(edge);
      // Near its start, where the edges leaving one step are still apart.
      if (label) chart.append(svg('text', { x: x1 + (x2 - x1) * 0.45, y: y1 + (y2 - y1) * 0.45 + 4, class: 'edge-label', 'font-size': 9, 'text-anchor': 'middle' }, label));
    }
  }
  for (const step of flow.steps) {
    const at = place.get(step.id);
    const kind = stepKind(step);
    const node = svg('g', { class: `step step-${kind}` + (taken.has(step.id) ? ' taken' : '') + (step.id === flow.start ? ' start' : ''), 'data-step': step.id });
    node.append(svg('rect', { x: at.x, y: at.y, width: boxW, height: boxH, rx: 6 }));
    node.append(svg('text', { x: at.x + 8, y: at.y + 15, 'font-size': 12, 'font-weight': 'bold' }, step.id));
    const detail = kind === 'ask' ? `${step.field}: ${step.kind}` : kind === 'end' ? `→ ${step.outcome}` : t('flow.kind.' + kind);
    node.append(svg('text', { x: at.x + 8, y: at.y + 30, 'font-size': 10 }, detail));
    const tip = step.ask || step.say || step.transfer || step.end || '';
    if (tip) node.append(svg('title', {}, tip));
    chart.append(node);
  }
  return chart;
}

/// The flow editor's errors from a 422, every one (`flow.steps.route.branch.0.field: …`).
function showFlowErrors(view, error) {
  const list = (error.problem?.errors || []).filter((e) => e.field === 'flow' || e.field.startsWith('flow.'));
  $('#flow-errors', view).replaceChildren(...list.map((e) => el('li', `${e.field}: ${e.message}`)));
  return list.length > 0;
}

/// A call's flow (the template version it ran, its path highlighted), fields and analysis.
async function renderFlowResult(view, call, result) {
  const section = $('#flow-panel', view);
  section.hidden = !result.flow_path;
  if (result.flow_path && call.template_id && section.dataset.drawn !== result.flow_path.join(',')) {
    const template = await api(`/api/templates/${call.template_id}?version=${call.template_version}`);
    if (template.flow) {
      $('#flow-graph', view).replaceChildren(flowGraph(template.flow, result.flow_path));
      section.dataset.drawn = result.flow_path.join(',');
    }
  }
  $('#flow-outcome', view).textContent = result.outcome ? `${t('flow.outcome')}: ${result.outcome}` : t('flow.no_outcome');
  $('#flow-fields', view).replaceChildren(...Object.entries(result.fields || {}).map(([name, value]) => {
    const li = el('li', null, 'field');
    li.dataset.field = name;
    li.append(el('strong', `${name}: `), el('span', value === null ? '—' : String(value)));
    return li;
  }));
  const analysis = result.analysis;
  const panel = $('#analysis-panel', view);
  panel.hidden = !analysis;
  if (!analysis) return;
  const fact = (name, text) => { const node = panel.querySelector(`[data-field="${name}"]`); node.textContent = text; };
  fact('success', `${analysis.success ? '✅' : '❌'} ${analysis.reason}`);
  fact('sentiment', analysis.sentiment ? t('analysis.sentiment.' + analysis.sentiment) : '—');
  fact('category', analysis.category);
  fact('method', analysis.method === 'llm' ? t('analysis.by_llm') : t('analysis.offline') + (analysis.llm_error ? ` (${analysis.llm_error})` : ''));
  fact('data', JSON.stringify(analysis.data));
}
