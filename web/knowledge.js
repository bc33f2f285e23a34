// Knowledge page: collections, their documents, upload (all files or none, every bad file named
// with its line), a search test showing what a call would find and what the offline engine would
// say, delete. Uses app.js's helpers (api, el, t, $, mount, alertError) like lists.js.
'use strict';

function bytesToBase64(buffer) {
  let binary = '';
  const bytes = new Uint8Array(buffer);
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

async function showKnowledge() {
  const view = mount('knowledge-view');
  const name = $('#knowledge-collection', view);
  const current = () => name.value.trim();
  const loadCollections = async () => {
    const list = await api('/api/knowledge');
    $('#knowledge-collections', view).replaceChildren(...list.items.map((c) => {
      const button = el('button', `${c.name} (${c.documents} ${t('knowledge.documents')}, ${c.chunks} ${t('knowledge.chunks')})`);
      button.type = 'button';
      button.dataset.name = c.name;
      button.addEventListener('click', () => { name.value = c.name; loadDocuments().catch(alertError); });
      return el('li', null).appendChild(button).parentNode;
    }));
    $('#no-knowledge', view).hidden = list.items.length > 0;
  };
  const loadDocuments = async () => {
    if (!current()) { $('#knowledge-documents', view).replaceChildren(); return; }
    let documents = [];
    try { documents = (await api(`/api/knowledge/${encodeURIComponent(current())}`)).documents; } catch (error) {
      if (error.problem?.status !== 404) throw error;
    }
    $('#knowledge-documents', view).replaceChildren(...documents.map((d) => {
      const li = el('li', null, 'knowledge-document');
      li.dataset.name = d.name;
      const remove = el('button', t('knowledge.delete'));
      remove.type = 'button';
      remove.addEventListener('click', () => api(`/api/knowledge/${encodeURIComponent(current())}/documents/${encodeURIComponent(d.name)}`, { method: 'DELETE' })
        .then(() => Promise.all([loadDocuments(), loadCollections()]), alertError));
      li.append(el('span', d.name, 'number'), el('span', `${d.kind} · ${d.chunks} ${t('knowledge.chunks')}`, 'muted'), remove);
      return li;
    }));
  };
  name.addEventListener('change', () => loadDocuments().catch(alertError));
  $('#knowledge-files', view).addEventListener('change', async (event) => {
    const files = [...event.target.files];
    const report = $('#knowledge-report', view);
    if (!files.length) return;
    if (!current()) { report.textContent = t('knowledge.name_first'); return; }
    report.textContent = t('knowledge.uploading');
    const documents = await Promise.all(files.map(async (f) => ({ name: f.name, content_base64: bytesToBase64(await f.arrayBuffer()) })));
    try {
      const stored = await api(`/api/knowledge/${encodeURIComponent(current())}/documents`, { method: 'POST', body: JSON.stringify({ documents }) });
      report.textContent = stored.documents.map((d) => `${d.name}: ${d.chunks} ${t('knowledge.chunks')}`).join(', ');
    } catch (error) {
      // Every bad file with its line; nothing was stored.
      report.textContent = (error.problem?.errors || []).map((e) => e.message).join(' · ') || error.message;
    }
    event.target.value = '';
    await Promise.all([loadDocuments(), loadCollections()]);
  });
  $('#knowledge-search', view).addEventListener('submit', async (event) => {
    event.preventDefault();
    const q = $('#knowledge-question', view).value.trim();
    if (!q || !current()) return;
    try {
      const found = await api(`/api/knowledge/${encodeURIComponent(current())}/search?q=${encodeURIComponent(q)}&limit=3`);
      $('#knowledge-answer', view).textContent = found.local_engine_answer
        ? `${t('knowledge.offline_says')}: ${found.local_engine_answer}` : t('knowledge.offline_passes');
      $('#knowledge-results', view).replaceChildren(...found.results.map((hit) => {
        const li = el('li', null, 'panel knowledge-hit');
        const where = `${hit.document}, ${t('campaigns.line')} ${hit.chunk.line}` + (hit.similarity != null ? ` · ${t('knowledge.similarity')} ${hit.similarity.toFixed(2)}` : '');
        li.append(el('strong', hit.chunk.title || hit.document), el('p', hit.chunk.text), el('p', where, 'muted'));
        return li;
      }));
    } catch (error) { alertError(error); }
  });
  await Promise.all([loadCollections(), showQuestions(view)]);
}

// Questions callers asked that the agent passed on, grouped with their counts; one step closes a
// group: a FAQ row written for it, the answer of the row that best matches it, or a dismissal.
async function showQuestions(view) {
  const found = await api('/api/knowledge-questions?days=7');
  $('#no-questions', view).hidden = found.groups.length > 0;
  $('#knowledge-questions', view).replaceChildren(...found.groups.map((group) => questionItem(view, group)));
}

/// "asked once", "asked 3 times": how often a group's question was asked (here and in a campaign's results).
function askedTimes(count) {
  return count === 1 ? t('knowledge.asked_once') : t('knowledge.asked_times').replace('{n}', count);
}

function questionItem(view, group) {
  const li = el('li', null, 'panel knowledge-question');
  const asked = askedTimes(group.count);
  const form = el('form');
  const field = (label, input) => { const wrap = el('label', label); wrap.append(input); return wrap; };
  const question = el('input', null, 'question-text');
  question.value = group.question;
  question.maxLength = 500;
  const answer = el('textarea', null, 'answer-text');
  answer.maxLength = 4000;
  const collection = el('input', null, 'answer-collection');
  collection.value = group.collections[0] || $('#knowledge-collection', view).value.trim();
  const add = el('button', t('knowledge.add_answer'), 'primary add-answer');
  add.type = 'submit';
  const same = el('button', null, 'same-as');
  same.type = 'button';
  same.hidden = true;
  const dismiss = el('button', t('knowledge.dismiss'), 'dismiss');
  dismiss.type = 'button';
  const report = el('p', null, 'muted answer-report');
  const close = (body, path) => api(`/api/knowledge-questions/${path}`, { method: 'POST', body: JSON.stringify({ question_ids: group.question_ids, ...body }) })
    .then((done) => {
      report.textContent = done.document ? t('knowledge.answered').replace('{collection}', done.document.collection) : '';
      form.hidden = true;
    }, (error) => { report.textContent = (error.problem?.errors || []).map((e) => e.message).join(' · ') || error.message; });
  const body = () => ({ collection: collection.value.trim(), question: question.value.trim() });
  form.addEventListener('submit', (event) => { event.preventDefault(); close({ ...body(), answer: answer.value.trim() }, 'answer'); });
  dismiss.addEventListener('click', () => close({}, 'dismiss'));
  // The FAQ row that comes closest, offered as the answer: the question is then another wording of it.
  if (collection.value) {
    api(`/api/knowledge/${encodeURIComponent(collection.value)}/search?q=${encodeURIComponent(group.question)}&limit=1`).then((match) => {
      const row = match.results.find((hit) => hit.chunk.faq);
      if (!row) return;
      same.textContent = `${t('knowledge.same_as')} "${row.chunk.title}"`;
      same.dataset.id = row.id;
      same.hidden = false;
      same.addEventListener('click', () => close({ ...body(), same_as: row.id }, 'answer'));
    }, () => {});
  }
  form.append(field(t('knowledge.question_label'), question), field(t('knowledge.answer_label'), answer),
              field(t('knowledge.collection'), collection), add, same, dismiss);
  li.append(el('strong', group.question), el('p', `${asked} · ${group.wordings.join(' · ')}`, 'muted'), form, report);
  return li;
}
