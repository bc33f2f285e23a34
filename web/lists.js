// Templates and do-not-call pages: list, create / add, remove, CSV import with its row report.
// Uses app.js's helpers (api, el, t, $, mount, token, alertError) like campaigns.js.
'use strict';

function showFieldErrors(view, error) {
  for (const field of error.problem?.errors || []) {
    const slot = $(`[data-error-for="${field.field.split('.')[0]}"]`, view);
    if (slot) slot.textContent = field.message;
  }
  alertError(error);
}

async function showTemplates() {
  const view = mount('templates-view');
  // The template being edited: saving makes its next version (PUT), keeping what the form does not
  // show (tools, analysis, knowledge…); nil, the form creates a new template.
  let editing = null;
  const heading = $('#new-template-title', view);
  const stopEditing = () => {
    editing = null;
    heading.textContent = t('templates.new');
    $('#cancel-edit', view).hidden = true;
    $('#new-template', view).reset();
    $('#flow-errors', view).replaceChildren();
  };
  const edit = (tp) => {
    editing = tp;
    heading.textContent = `${t('templates.editing')}: ${tp.name} v${tp.version}`;
    $('#cancel-edit', view).hidden = false;
    $('#template-name', view).value = tp.name;
    $('#template-purpose', view).value = tp.purpose;
    $('#template-questions', view).value = tp.flow ? '' : tp.questions.join('\n');   // a flow's asks are its questions
    $('#template-greeting', view).value = tp.greeting || '';
    $('#template-flow', view).value = tp.flow ? JSON.stringify(tp.flow, null, 2) : '';
    $('#flow-errors', view).replaceChildren();
    heading.scrollIntoView();
  };
  $('#cancel-edit', view).addEventListener('click', stopEditing);
  const load = async () => {
    const list = await api('/api/templates');
    $('#template-list', view).replaceChildren(...list.items.map((tp) => {
      const li = el('li', null, 'panel template');
      li.dataset.name = tp.name;
      const title = el('h2', `${tp.name} `);
      title.append(el('span', `v${tp.version}`, 'cstate'));
      li.append(title, el('p', tp.purpose), el('p', `${tp.questions.length} ${t('templates.questions_count')}: ${tp.questions.join(' / ')}`, 'muted'));
      if (tp.flow) li.append(flowGraph(tp.flow));
      const button = el('button', t('templates.edit'));
      button.type = 'button';
      button.dataset.action = 'edit';
      button.addEventListener('click', () => edit(tp));
      const tryIt = el('a', t('try.button'), 'button');
      tryIt.href = `#/try?template=${encodeURIComponent(tp.name)}`;
      tryIt.dataset.action = 'try';
      li.append(button, ' ', tryIt);
      return li;
    }));
    $('#no-templates', view).hidden = list.items.length > 0;
  };
  $('#new-template', view).addEventListener('submit', async (event) => {
    event.preventDefault();
    view.querySelectorAll('.error').forEach((p) => { p.textContent = ''; });
    const value = (id) => $(id, view).value.trim();
    const body = editing ? { ...editing } : {};
    for (const key of ['id', 'version', 'created_at', 'greeting', 'flow']) delete body[key];
    Object.assign(body, { name: value('#template-name'), purpose: value('#template-purpose'),
                          questions: value('#template-questions').split('\n').map((q) => q.trim()).filter(Boolean) });
    if (value('#template-greeting')) body.greeting = value('#template-greeting');
    // The editor's text goes as it is (YAML or JSON): the server reads it and names what is wrong.
    if (value('#template-flow')) body.flow = $('#template-flow', view).value;
    $('#flow-errors', view).replaceChildren();
    try {
      if (editing) await api(`/api/templates/${editing.id}`, { method: 'PUT', body: JSON.stringify(body) });
      else await api('/api/templates', { method: 'POST', body: JSON.stringify(body) });
      stopEditing();
      await load();
    } catch (error) {
      const flowErrors = showFlowErrors(view, error);
      showFieldErrors(view, { ...error, problem: { ...error.problem, errors: (error.problem?.errors || []).filter((e) => !e.field.startsWith('flow')) } });
      if (flowErrors) alertError(error);
    }
  });
  await load();
}

async function showDoNotCall() {
  const view = mount('dnc-view');
  const search = $('#dnc-search', view);
  const load = async () => {
    const page = await api('/api/dnc?limit=200' + (search.value.trim() ? '&q=' + encodeURIComponent(search.value.trim()) : ''));
    $('#dnc-list', view).replaceChildren(...page.items.map((entry) => {
      const li = el('li', null, 'dnc-entry');
      li.dataset.number = entry.number;
      const remove = el('button', t('dnc.remove'));
      remove.type = 'button';
      remove.addEventListener('click', () => api(`/api/dnc/${encodeURIComponent(entry.number)}`, { method: 'DELETE' }).then(load, alertError));
      li.append(el('span', entry.number, 'number'), el('span', entry.reason, 'muted'), remove);
      return li;
    }));
    $('#dnc-total', view).textContent = `${page.total} ${t('dnc.total')}`;
  };
  let timer = null;
  search.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(load, 250); });
  $('#dnc-add', view).addEventListener('submit', async (event) => {
    event.preventDefault();
    view.querySelectorAll('.error').forEach((p) => { p.textContent = ''; });
    const numbers = $('#dnc-numbers', view).value.split('\n').map((n) => n.trim()).filter(Boolean);
    try {
      const added = await api('/api/dnc', { method: 'POST', body: JSON.stringify({ numbers, reason: $('#dnc-reason', view).value.trim() }) });
      $('#dnc-report', view).textContent = `${added.added} ${t('dnc.added')}, ${added.already_listed} ${t('dnc.already')}`;
      $('#dnc-add', view).reset();
      await load();
    } catch (error) { showFieldErrors(view, error); }
  });
  $('#dnc-file', view).addEventListener('change', async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    // The last report would otherwise stand until the import answers.
    $('#dnc-report', view).textContent = t('dnc.importing');
    const response = await fetch('/api/dnc/import', { method: 'POST', headers: authHeaders({ 'Content-Type': 'text/csv' }), body: await file.text() });
    const body = await response.json();
    if (!response.ok) { $('#dnc-report', view).textContent = ''; alertError(new Error(body.detail)); return; }
    const rows = body.skipped.map((row) => `${t('campaigns.line')} ${row.line}: ${row.reason}`).join('; ');
    $('#dnc-report', view).textContent = `${body.added} ${t('dnc.added')}, ${body.already_listed} ${t('dnc.already')}, ${body.skipped.length} ${t('dnc.skipped')}${rows ? ' — ' + rows : ''}`;
    await load();
  });
  await load();
}
