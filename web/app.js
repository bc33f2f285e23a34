// VoiceBridge dashboard: three views (list, new call, detail) on hash routes, kept live by the
// /api/events WebSocket. No build step; all text goes in with textContent (never as HTML).
'use strict';

const STATES = ['queued', 'dialing', 'ringing', 'connected', 'completed', 'no_answer', 'busy', 'rejected', 'failed', 'cancelled', 'voicemail', 'voicemail_left', 'screened_out'];
const STATE_ICON = { queued: '⏳', dialing: '📞', ringing: '🔔', connected: '🟢', completed: '✅', no_answer: '🔕', busy: '⛔', rejected: '🚫', failed: '❌', cancelled: '✖️', voicemail: '📼', voicemail_left: '📨', screened_out: '🛡️' };
const STATUS_ICON = { answered: '✅', unclear: '❓', refused: '🚫', not_asked: '⏺️', pending: '⏳' };

let lang = localStorage.getItem('vb.lang') || ((navigator.language || 'en').toLowerCase().startsWith('ko') ? 'ko' : 'en');
const t = (key) => (window.VB_STRINGS[lang] || {})[key] || window.VB_STRINGS.en[key] || key;
const $ = (selector, root = document) => root.querySelector(selector);

function translate(root) {
  root.querySelectorAll('[data-i18n]').forEach((el) => { el.textContent = t(el.dataset.i18n); });
  root.querySelectorAll('[data-i18n-placeholder]').forEach((el) => { el.placeholder = t(el.dataset.i18nPlaceholder); });
  document.documentElement.lang = lang;
  if (liveKey) $('#live').textContent = t(liveKey);
  $('#lang').textContent = lang === 'ko' ? 'English' : '한국어';
}

// ---- API -----------------------------------------------------------------------------------

function token() { return localStorage.getItem('vb.token') || ''; }

// The request headers every API call carries: the token, when there is one.
function authHeaders(headers = {}) {
  if (token()) headers.Authorization = 'Bearer ' + token();
  return headers;
}

// An API WebSocket: browsers cannot set its headers, so the token goes as ?access_token= (the
// server takes it on upgrades only).
function apiSocket(path, params = {}) {
  const query = new URLSearchParams(params);
  if (token()) query.set('access_token', token());
  return new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}?${query}`);
}

async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: authHeaders({ 'Content-Type': 'application/json' }) });
  if (response.status === 401) {
    const value = prompt(t('token.prompt'));
    if (value) { localStorage.setItem('vb.token', value.trim()); return api(path, options); }
  }
  const type = response.headers.get('Content-Type') || '';
  const body = type.includes('json') ? await response.json() : null;
  if (!response.ok) { const error = new Error(body?.detail || response.statusText); error.problem = body; throw error; }
  return body;
}

// A file the API serves (a recording, an export) as an object URL: fetched with the token in the
// Authorization header — the server takes ?access_token= on WebSocket upgrades only, so a token
// never sits in a URL that history, logs or a Referer could keep.
async function apiBlobURL(path) {
  const response = await fetch(path, { headers: authHeaders() });
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
  return URL.createObjectURL(await response.blob());
}

// ---- Formatting ----------------------------------------------------------------------------

const two = (n) => String(n).padStart(2, '0');
const clock = (seconds) => `${two(Math.floor(seconds / 60))}:${two(Math.floor(seconds % 60))}`;
const time = (iso) => (iso ? new Date(iso).toLocaleString(lang === 'ko' ? 'ko-KR' : 'en-GB', { dateStyle: 'short', timeStyle: 'short' }) : '–');
const duration = (s) => (s == null ? '–' : `${s}${t('seconds')}`);

function stateBadge(state) {
  const span = document.createElement('span');
  span.className = `state state-${state}`;
  span.dataset.state = state;
  span.textContent = `${STATE_ICON[state] || ''} ${t('state.' + state)}`;
  return span;
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text != null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/// Runs `opened` when `details` is opened and `closed` when it is closed. The toggle event comes after
/// the click, as a task of its own: a list refreshed in between (a call event) has replaced the
/// element by then, and the user's click would be lost — so the one that took its place (the same
/// kind of details in the list item with the same `data-id`) is opened instead, and its own toggle
/// loads it.
function onToggle(details, opened, closed) {
  details.addEventListener('toggle', () => {
    if (!details.open) { closed(); return; }
    if (details.isConnected) { opened(); return; }
    const item = details.closest('[data-id]');
    const replacement = item && document.querySelector(`[data-id="${CSS.escape(item.dataset.id)}"] details.${[...details.classList].join('.')}`);
    if (replacement && !replacement.open) replacement.open = true;
  });
}

// ---- Views ---------------------------------------------------------------------------------

let current = null;   // { refresh(event), id? }

async function showList() {
  const view = mount('list-view');
  const filter = $('#state-filter', view);
  STATES.forEach((s) => { const o = el('option', t('state.' + s)); o.value = s; filter.append(o); });
  const params = new URLSearchParams(location.hash.split('?')[1] || '');
  filter.value = params.get('state') || '';
  $('#search', view).value = params.get('q') || '';
  let timer = null;
  const load = async () => {
    const query = new URLSearchParams();
    if (filter.value) query.set('state', filter.value);
    if ($('#search', view).value.trim()) query.set('q', $('#search', view).value.trim());
    const [stats, page] = await Promise.all([api('/api/outbound/stats'), api('/api/outbound/?' + query)]);
    for (const [key, value] of Object.entries(stats)) {
      const cell = view.querySelector(`[data-stat="${key}"]`);
      if (cell) cell.textContent = key === 'success_rate' ? `${value}%` : value;
    }
    const body = $('#calls tbody', view);
    body.replaceChildren(...page.items.map(row));
    $('#empty', view).hidden = page.items.length > 0;
    await renderCharts(view);
  };
  filter.addEventListener('change', load);
  $('#search', view).addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(load, 250); });
  current = { refresh: () => { clearTimeout(timer); timer = setTimeout(load, 150); } };
  await load();
}

function row(call) {
  const tr = document.createElement('tr');
  tr.dataset.id = call.outbound_id;
  const link = el('a', t('list.view'));
  link.href = `#/calls/${call.outbound_id}`;
  const stateCell = el('td');
  stateCell.append(stateBadge(call.state));
  // A call waiting for its retry says what the last attempt ended in.
  if (call.state === 'queued' && call.last_outcome) {
    stateCell.append(el('span', ` ${t('list.after')} ${t('state.' + call.last_outcome)}`, 'muted last-outcome'));
    if (call.next_attempt_at) stateCell.append(el('span', ` · ${t('list.retry_at')} ${time(call.next_attempt_at)}`, 'muted retry-at'));
  }
  const resultCell = el('td');
  resultCell.append(link);
  // Inbound calls show who called; outbound ones whom we called.
  const direction = el('td', `${{ inbound: '↙', browser: '🎙' }[call.direction] || '↗'} ${t('direction.' + call.direction)}`);
  direction.dataset.direction = call.direction;
  tr.append(el('td', time(call.created_at)), direction, el('td', call.direction === 'inbound' ? call.caller_number : call.callee_number),
            el('td', call.purpose, 'purpose'), stateCell,
            el('td', duration(call.duration_seconds)), resultCell);
  return tr;
}

function showNew() {
  const view = mount('new-view');
  const list = $('#question-list', view);
  const addQuestion = (text = '') => {
    const li = document.createElement('li');
    const input = el('input');
    input.name = 'question';
    input.value = text;
    input.required = true;
    input.setAttribute('aria-label', `${t('new.question')} ${list.children.length + 1}`);
    const remove = el('button', '✕');
    remove.type = 'button';
    remove.setAttribute('aria-label', t('new.remove_question'));
    remove.addEventListener('click', () => { if (list.children.length > 1) li.remove(); });
    li.append(input, remove);
    list.append(li);
    return input;
  };
  addQuestion();
  $('#add-question', view).addEventListener('click', () => addQuestion().focus());
  // Try it: the form's call, with the operator's microphone as the callee.
  $('#try-form', view).addEventListener('click', () => {
    const value = (id) => $('#' + id, view).value.trim();
    const call = { purpose: value('purpose'), questions: [...list.querySelectorAll('input')].map((i) => i.value.trim()).filter(Boolean) };
    if (value('caller_display_name')) call.caller_display_name = value('caller_display_name');
    if (value('language')) call.language = value('language');
    sessionStorage.setItem('vb.try', JSON.stringify(call));
    location.hash = '#/try';
  });
  $('#new-call', view).addEventListener('submit', async (event) => {
    event.preventDefault();
    view.querySelectorAll('.error').forEach((p) => { p.textContent = ''; });
    const value = (id) => $('#' + id, view).value.trim();
    const answers = value('simulated_answers').split('\n').map((s) => s.trim()).filter(Boolean);
    const request = {
      caller_number: value('caller_number'), callee_number: value('callee_number'), purpose: value('purpose'),
      questions: [...list.querySelectorAll('input')].map((i) => i.value.trim()).filter(Boolean),
      max_duration: Number(value('max_duration')), retry_on_no_answer: $('#retry_on_no_answer', view).checked,
      max_retries: Number(value('max_retries')),
    };
    if (value('caller_display_name')) request.caller_display_name = value('caller_display_name');
    if (value('language')) request.language = value('language');
    if (answers.length) request.metadata = { simulated_answers: answers };
    const submit = $('#submit', view);
    submit.disabled = true;
    submit.textContent = t('new.sending');
    try {
      const created = await api('/api/outbound/', { method: 'POST', body: JSON.stringify(request) });
      location.hash = `#/calls/${created.outbound_id}`;
    } catch (error) {
      for (const field of error.problem?.errors || []) {
        const target = view.querySelector(`[data-error-for="${field.field}"]`) || $('#form-error', view);
        target.textContent = target.textContent ? `${target.textContent}; ${field.message}` : field.message;
      }
      if (!error.problem?.errors) $('#form-error', view).textContent = t('error.generic') + error.message;
      submit.disabled = false;
      submit.textContent = t('new.submit');
    }
  });
}

/** A language's name in the page's language ("ko" → "Korean"); a code without one, as it is. */
function languageName(code) {
  const name = t(`language.${code}`);
  return name === `language.${code}` ? code : name;
}

async function showDetail(id) {
  const view = mount('detail-view');
  const load = async () => {
    const [call, result, report] = await Promise.all([api(`/api/outbound/${id}`), api(`/api/outbound/${id}/result`), api(`/api/outbound/${id}/report`)]);
    const field = (name, text) => { view.querySelector(`[data-field="${name}"]`).textContent = text; };
    field('outbound_id', call.outbound_id);
    field('caller', call.caller_display_name ? `${call.caller_number} (${call.caller_display_name})` : call.caller_number);
    field('callee_number', call.callee_number);
    field('purpose', call.purpose);
    field('duration', duration(call.duration_seconds));
    field('attempt_count', call.attempt_count);
    // Shown only when the call has them: a carrier's answering-machine verdict, the bot that ran it,
    // the person it went to, the languages a caller who switched spoke (the call's own first), its
    // trace id (to find it in the OpenTelemetry backend).
    for (const name of ['answered_by', 'bot_url', 'transferred_to', 'languages_spoken', 'trace_id']) {
      const value = view.querySelector(`[data-field="${name}"]`);
      value.hidden = value.previousElementSibling.hidden = call[name] == null;
      value.textContent = call[name] == null ? '' : name === 'answered_by' ? t(`answered_by.${call[name]}`)
        : name === 'languages_spoken' ? call[name].map(languageName).join(' → ') : call[name];
      if (name === 'answered_by' && call.answered_by_ms != null) value.textContent += ` (${(call.answered_by_ms / 1000).toFixed(1)} s)`;
      if (name === 'transferred_to' && call.transfer_outcome) value.textContent += ` — ${t('transfer.' + call.transfer_outcome)}`;
    }
    $('#attempts', view).replaceChildren(...(call.attempts || []).map((a) => {
      const li = el('li', `#${a.number} ${time(a.started_at)} `);
      li.dataset.outcome = a.outcome || '';
      li.append(a.outcome ? stateBadge(a.outcome) : el('span', '…'));
      if (a.reason) li.append(el('span', ` — ${a.reason}`, 'muted'));
      return li;
    }));
    $('#state', view).replaceWith(Object.assign(stateBadge(call.state), { id: 'state' }));
    const ended = STATES.indexOf(call.state) >= STATES.indexOf('completed');
    showListening(view, call.state === 'connected');
    $('#cancel-call', view).hidden = ended;
    $('#retry-call', view).hidden = !ended;
    $('#timeline', view).replaceChildren(...(call.timeline || []).map((entry) => {
      const li = el('li');
      li.append(stateBadge(entry.state), el('time', time(entry.at)));
      if (entry.reason) li.append(el('span', ` — ${entry.reason}`, 'muted'));
      return li;
    }));
    $('#answers', view).replaceChildren(...result.answers.map((a) => {
      const li = el('li', null, `answer answer-${a.status}`);
      li.dataset.status = a.status;
      li.append(el('strong', `${STATUS_ICON[a.status] || ''} ${a.question_id.toUpperCase()}. ${a.question_text}`));
      li.append(el('span', ` (${t('status.' + a.status)})`, 'muted'));
      if (a.answer_summary) li.append(el('p', `${t('detail.answer')}: "${a.answer_summary}" · ${t('detail.confidence')} ${Math.round(a.confidence * 100)}%`));
      if (a.answer_text) li.append(el('p', `${t('detail.verbatim')}: "${a.answer_text}"`, 'muted'));
      return li;
    }));
    $('#summary', view).textContent = result.summary || t('detail.no_summary');
    await renderFlowResult(view, call, result);
    $('#transcript', view).replaceChildren(...result.transcript.map((line) => {
      const li = el('li', null, `line line-${line.speaker}`);
      li.append(el('span', line.speaker === 'ai' ? '🤖' : '👤', 'who'), el('time', `[${clock(line.timestamp)}]`));
      li.querySelector('.who').setAttribute('aria-label', t('speaker.' + line.speaker));
      li.append(el('span', line.text, 'text'));
      return li;
    }));
    renderReport(view, report);
    renderDeliveries(view, call, load);
    const audio = $('#recording', view);
    if (result.recording_url && ended && audio.dataset.recording !== result.recording_url) {
      audio.dataset.recording = result.recording_url;
      apiBlobURL(result.recording_url).then((src) => {
        audio.src = src;
        audio.hidden = false;
        $('#no-recording', view).hidden = true;
      }, (error) => { delete audio.dataset.recording; alertError(error); });
    }
  };
  setUpListening(view, id);
  $('#cancel-call', view).addEventListener('click', () => api(`/api/outbound/${id}/cancel`, { method: 'POST' }).then(load, alertError));
  $('#retry-call', view).addEventListener('click', () => api(`/api/outbound/${id}/retry`, { method: 'POST' }).then(load, alertError));
  let timer = null;
  current = { id, refresh: (event) => { if (!event || event.outbound_id === id) { clearTimeout(timer); timer = setTimeout(load, 100); } } };
  await load();
}

function alertError(error) { $('#live').textContent = t('error.generic') + error.message; }

// Each page gets a fresh container: a load still in flight for the page left behind (a fetch, a
// refresh timer) then writes into a detached element instead of into the page now shown.
function mount(templateID) {
  const page = document.createElement('div');
  page.append($('#' + templateID).content.cloneNode(true));
  translate(page);
  $('#view').replaceChildren(page);
  return page;
}

async function route() {
  current = null;
  const hash = location.hash || '#/';
  try {
    if (hash.startsWith('#/new')) showNew();
    else if (hash.startsWith('#/campaigns')) await showCampaigns();
    else if (hash.startsWith('#/templates')) await showTemplates();
    else if (hash.startsWith('#/dnc')) await showDoNotCall();
    else if (hash.startsWith('#/knowledge')) await showKnowledge();
    else if (hash.startsWith('#/tests')) await showTests();
    else if (hash.startsWith('#/try')) showTry(new URLSearchParams(hash.split('?')[1] || ''));
    else if (hash.startsWith('#/calls/')) await showDetail(decodeURIComponent(hash.slice(8).split('?')[0]));
    else await showList();
  } catch (error) { alertError(error); }
}

// ---- Live updates --------------------------------------------------------------------------

let lastEventID = null;
let liveKey = null;
function setLive(key) { liveKey = key; $('#live').textContent = t(key); }
function connectEvents() {
  const socket = apiSocket('/api/events', lastEventID != null ? { since: lastEventID } : {});
  socket.onopen = () => setLive('live.connected');
  socket.onmessage = (message) => {
    const event = JSON.parse(message.data);
    lastEventID = event.id;
    if (current) current.refresh(event);
  };
  socket.onclose = () => { setLive('live.reconnecting'); setTimeout(connectEvents, 1000); };
}

$('#lang').addEventListener('click', () => {
  lang = lang === 'ko' ? 'en' : 'ko';
  localStorage.setItem('vb.lang', lang);
  translate(document);
  route();
});
window.addEventListener('hashchange', route);
translate(document);
route();
connectEvents();
