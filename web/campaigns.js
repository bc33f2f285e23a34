// Campaigns page: the list with live progress (refreshed on every /api/events event), start /
// pause / cancel, results export, and a form that creates a campaign from a template and
// uploads its CSV contact list, showing the row report. Uses app.js's helpers (api, el, t, $, mount).
'use strict';

const CAMPAIGN_ENDED = ['completed', 'no_answer', 'busy', 'rejected', 'failed', 'cancelled', 'voicemail', 'voicemail_left', 'screened_out'];
const CAMPAIGN_ACTIONS = { draft: ['start', 'cancel'], running: ['pause', 'cancel'], paused: ['start', 'cancel'], completed: [], cancelled: [] };

async function showCampaigns() {
  const view = mount('campaigns-view');
  const templates = await api('/api/templates');
  const select = $('#campaign-template', view);
  select.replaceChildren(...templates.items.map((tp) => { const o = el('option', `${tp.name} (v${tp.version})`); o.value = tp.id; return o; }));
  if (!templates.items.length) $('[data-error-for=template]', view).textContent = t('campaigns.no_templates');
  const load = async () => {
    const list = await api('/api/campaigns');
    $('#campaign-list', view).replaceChildren(...list.items.map(campaignItem));
    $('#no-campaigns', view).hidden = list.items.length > 0;
  };
  $('#new-campaign', view).addEventListener('submit', async (event) => {
    event.preventDefault();
    view.querySelectorAll('.error').forEach((p) => { p.textContent = ''; });
    const value = (name) => $(`[name=${name}]`, view).value.trim();
    const file = $('#campaign-csv', view).files[0];
    if (!file) { $('[data-error-for=csv]', view).textContent = t('campaigns.csv'); return; }
    const body = { name: value('name'), template: select.value, caller_number: value('caller_number'),
                   calls_per_minute: Number(value('calls_per_minute')), max_concurrent_calls: Number(value('max_concurrent_calls')) };
    if (value('time_zone')) body.window = { time_zone: value('time_zone'), days: [1, 2, 3, 4, 5], start: '09:00', end: '18:00' };
    try {
      const campaign = await api('/api/campaigns', { method: 'POST', body: JSON.stringify(body) });
      const report = await upload(campaign.id, await file.text());
      showReport(view, report);
      await load();
    } catch (error) {
      for (const field of error.problem?.errors || []) {
        const slot = $(`[data-error-for="${field.field}"]`, view);
        if (slot) slot.textContent = field.message;
      }
      alertError(error);
    }
  });
  let timer = null;
  current = { refresh: () => { clearTimeout(timer); timer = setTimeout(load, 300); } };
  await load();
}

/// The contact list goes up as text/csv, not JSON.
async function upload(id, csv) {
  const response = await fetch(`/api/campaigns/${id}/contacts`, { method: 'POST', headers: authHeaders({ 'Content-Type': 'text/csv' }), body: csv });
  const body = await response.json();
  if (!response.ok) { const error = new Error(body.detail || response.statusText); error.problem = body; throw error; }
  return body;
}

function showReport(view, report) {
  $('#upload-report', view).hidden = false;
  $('#upload-summary', view).textContent = `${report.accepted} ${t('campaigns.accepted')}, ${report.skipped} ${t('campaigns.skipped')}`;
  $('#skipped-rows', view).replaceChildren(...report.skipped_rows.map((row) => {
    const li = el('li', `${t('campaigns.line')} ${row.line}: ${row.reason} (${row.value})`);
    li.dataset.line = row.line;
    return li;
  }));
}

function campaignItem(campaign) {
  const li = el('li', null, 'panel campaign');
  li.dataset.id = campaign.id;
  li.dataset.state = campaign.state;
  const calls = campaign.progress.calls || {};
  const done = CAMPAIGN_ENDED.reduce((sum, state) => sum + (calls[state] || 0), campaign.progress.skipped_at_dial || 0);
  const live = ['dialing', 'ringing', 'connected'].reduce((sum, state) => sum + (calls[state] || 0), 0);
  const title = el('h2', campaign.name);
  const state = el('span', t('cstate.' + campaign.state), `cstate cstate-${campaign.state}`);
  title.append(' ', state);
  const bar = document.createElement('progress');
  bar.max = Math.max(campaign.contacts, 1);
  bar.value = done;
  bar.setAttribute('aria-label', `${done} / ${campaign.contacts}`);
  const counts = CAMPAIGN_ENDED.filter((s) => calls[s]).map((s) => `${t('state.' + s)} ${calls[s]}`);
  if (live) counts.push(`${t('campaigns.live')} ${live}`);
  const summary = el('p', `${done}/${campaign.contacts} ${t('campaigns.done')}${counts.length ? ' · ' + counts.join(' · ') : ''}`, 'progress-text');
  const actions = el('div', null, 'actions');
  for (const action of CAMPAIGN_ACTIONS[campaign.state] || []) {
    const button = el('button', t('campaigns.' + action));
    button.type = 'button';
    button.dataset.action = action;
    button.addEventListener('click', () => api(`/api/campaigns/${campaign.id}/${action}`, { method: 'POST' }).then(() => current?.refresh(), alertError));
    actions.append(button);
  }
  for (const format of ['csv', 'jsonl']) {
    const link = el('a', `⬇ ${format.toUpperCase()}`);
    link.href = `/api/campaigns/${campaign.id}/results.${format}`;
    link.dataset.export = format;
    link.addEventListener('click', (event) => {   // with the token in a header, as a download
      event.preventDefault();
      apiBlobURL(link.href).then((url) => {
        const save = el('a');
        save.href = url;
        save.download = `${campaign.name || campaign.id}.${format}`;
        save.click();
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
      }, alertError);
    });
    actions.append(link);
  }
  li.append(title, bar, summary, actions, campaignResults(campaign), contactsTable(campaign));
  return li;
}

/// A contact's state in words: waiting and skipped are its own, the rest its call's.
const contactState = (state) => (state === 'waiting' || state === 'skipped' ? t('contact.' + state) : t('state.' + state));

/// The campaign's contacts, filtered by state, opened on demand (and kept open across refreshes).
const openContacts = new Map();   // campaign id → chosen filter
function contactsTable(campaign) {
  const details = el('details', null, 'contacts');
  details.append(el('summary', `${t('campaigns.contacts')} (${campaign.contacts})`));
  const filter = el('select');
  filter.setAttribute('aria-label', t('list.filter'));
  for (const state of ['', 'waiting', ...CAMPAIGN_ENDED, 'dialing', 'ringing', 'connected', 'queued', 'skipped']) {
    const option = el('option', state ? contactState(state) : t('list.all'));
    option.value = state;
    filter.append(option);
  }
  const table = el('table', null, 'contact-table');
  const load = async () => {
    openContacts.set(campaign.id, filter.value);
    const page = await api(`/api/campaigns/${campaign.id}/contacts?limit=200${filter.value ? '&state=' + filter.value : ''}`);
    const head = el('tr');
    head.append(...['#', t('col.callee'), ...campaign.columns.slice(0, 2), t('col.state'), t('campaigns.attempts')].map((h) => el('th', h)));
    table.replaceChildren(head, ...page.items.map((c) => {
      const tr = el('tr');
      tr.dataset.state = c.state;
      const state = el('td');
      if (c.outbound_id) { const a = el('a', contactState(c.state)); a.href = `#/calls/${c.outbound_id}`; state.append(a); } else state.textContent = contactState(c.state);
      tr.append(el('td', c.line), el('td', c.number), ...campaign.columns.slice(0, 2).map((k) => el('td', c.variables[k] || '')), state, el('td', c.attempts));
      return tr;
    }));
  };
  filter.addEventListener('change', load);
  onToggle(details, load, () => openContacts.delete(campaign.id));
  if (openContacts.has(campaign.id)) { filter.value = openContacts.get(campaign.id); details.open = true; }
  const wrap = el('div', null, 'table-wrap');
  wrap.append(table);
  details.append(filter, wrap);
  return details;
}
