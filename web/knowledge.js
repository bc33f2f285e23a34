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
  await loadCollections();
}
