// A call's webhook deliveries on its detail page: each event, the endpoint it went to, its state,
// every attempt (the receiver's status or the network error), and a button that sends it again.
'use strict';

function renderDeliveries(view, call, reload) {
  const deliveries = call.webhooks || [];
  $('#webhooks-panel', view).hidden = deliveries.length === 0;
  $('#webhooks', view).replaceChildren(...deliveries.map((d) => {
    const li = el('li', null, `delivery delivery-${d.state}`);
    li.dataset.state = d.state;
    li.dataset.delivery = d.id;
    li.append(el('strong', `${d.event_type} → ${d.endpoint_id} `), el('span', t(`delivery.${d.state}`), `state state-${d.state}`));
    const attempts = el('ol', null, 'attempts');
    attempts.append(...d.attempts.map((a) => el('li', `${time(a.at)} ${a.status ?? a.error ?? ''} (${a.duration_ms} ms)`)));
    li.append(attempts);
    if (d.state === 'pending' && d.next_attempt_at) li.append(el('span', `${t('delivery.next')} ${time(d.next_attempt_at)}`, 'muted'));
    const replay = el('button', t('delivery.replay'));
    replay.type = 'button';
    replay.addEventListener('click', () => api(`/api/webhooks/${d.endpoint_id}/deliveries/${d.id}/replay`, { method: 'POST' }).then(reload, alertError));
    li.append(' ', replay);
    return li;
  }));
}
