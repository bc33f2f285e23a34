// Tests page: run a test suite (YAML) against a template through POST /api/tests, whose answer
// streams as NDJSON — a row per persona as its call ends, then the run's result with each failure
// as expected vs got; every row opens its call. Uses app.js's helpers (api, authHeaders, el, t, $, mount).
'use strict';

const EXAMPLE_SUITE = `name: smoke
personas:
  - name: cooperative
    says: ["Yes, I can attend the meeting.", "No, the original location is fine."]
    expect:
      answers:
        - {status: answered, answer: "yes"}
`;

async function showTests() {
  const view = mount('tests-view');
  const templates = (await api('/api/templates')).items;
  const select = $('#test-template', view);
  select.replaceChildren(...templates.map((item) => { const o = el('option', item.name); o.value = item.name; return o; }));
  if (!templates.length) $('#test-progress', view).textContent = t('tests.no_templates');
  $('#test-suite', view).value = EXAMPLE_SUITE;
  $('#test-run', view).addEventListener('submit', (event) => {
    event.preventDefault();
    runSuite(view).catch((error) => { $('#test-progress', view).textContent = t('error.generic') + error.message; $('#run-tests', view).disabled = false; });
  });
}

async function runSuite(view) {
  const errors = $('#test-errors', view), progress = $('#test-progress', view), body = $('#test-results tbody', view);
  errors.replaceChildren();
  body.replaceChildren();
  $('#test-results', view).hidden = true;
  $('#run-tests', view).disabled = true;
  const request = { template: $('#test-template', view).value, suite: $('#test-suite', view).value, parallel: Number($('#test-parallel', view).value) || 1 };
  const response = await fetch('/api/tests', { method: 'POST', headers: authHeaders({ 'Content-Type': 'application/json' }), body: JSON.stringify(request) });
  if (!response.ok) {
    const problem = await response.json().catch(() => ({}));
    errors.replaceChildren(...[problem.detail || response.statusText, ...(problem.errors || []).map((e) => `${e.field}: ${e.message}`)].map((line) => el('li', line)));
    $('#run-tests', view).disabled = false;
    return;
  }
  let done = 0;
  progress.textContent = `${t('tests.running')} 0`;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  for (;;) {
    const { value, done: finished } = await reader.read();
    if (value) pending += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (!line) continue;   // the server's keep-alive
      const message = JSON.parse(line);
      if (message.persona) { done += 1; progress.textContent = `${t('tests.running')} ${done}`; }
      if (message.error) progress.textContent = t('error.generic') + message.error;
      if (message.result) showResult(view, message.result);
    }
    if (finished) break;
  }
  $('#run-tests', view).disabled = false;
}

function showResult(view, result) {
  const passed = result.personas.filter((p) => p.passed).length;
  const timing = !result.timing ? '' : result.timing.time === 'virtual'
    ? ` (${t('tests.virtual_time').replace('{n}', (result.timing.call_seconds / Math.max(result.timing.real_seconds, 0.001)).toFixed(1))})`
    : ` (${t('tests.real_time')})`;
  $('#test-progress', view).textContent = `${result.suite}: ${passed} ${t('tests.passed_of')} ${result.personas.length}${timing}`;
  const body = $('#test-results tbody', view);
  body.replaceChildren(...result.personas.flatMap((p) => {
    const row = el('tr', null, p.passed ? 'test-pass' : 'test-fail');
    row.dataset.persona = p.name;
    const name = el('td');
    if (p.call_id) { const link = el('a', p.name); link.href = `#/calls/${encodeURIComponent(p.call_id)}`; name.append(link); } else name.textContent = p.name;
    row.append(name, el('td', p.passed ? `✅ ${t('tests.pass')}` : `❌ ${t('tests.fail')}`), el('td', p.state), el('td', p.seconds.toFixed(1)));
    const rows = [row];
    for (const f of p.failures) {
      const detail = el('tr', null, 'test-failure');
      const cell = el('td', `✗ ${f.what}: ${t('tests.expected')} ${f.expected}, ${t('tests.got')} ${f.got}`);
      cell.colSpan = 4;
      detail.append(cell);
      rows.push(detail);
    }
    return rows;
  }));
  $('#test-results', view).hidden = false;
}
