// plan.js: the subscription and the plan list.
import { call } from '../shared/api.js';
import { h, $, fill, when } from '../shared/dom.js';

export async function loadPlan(session, onAuthLost) {
  let sub, plans;
  try {
    [sub, plans] = await Promise.all([call('GET', '/v1/subscription'), call('GET', '/v1/plans')]);
  } catch (e) {
    if (e.status === 401) onAuthLost(); else fill($('#plan-sub'), h('dd', {}, e.message));
    return;
  }
  const product = session.product === 'dt' ? 'B2B monitoring (dt_)' : 'Tweet Alerts (xg_)';
  fill($('#plan-sub'),
    h('dt', {}, 'Product'), h('dd', {}, product),
    h('dt', {}, 'Plan'), h('dd', { id: 'plan-tier' }, sub.tier),
    h('dt', {}, session.product === 'dt' ? 'Targets allowed' : 'Tracked accounts allowed'), h('dd', {}, String(sub.account_limit)),
    h('dt', {}, 'Renews or ends'), h('dd', {}, sub.expires_at ? when(sub.expires_at) : 'no end date'),
    h('dt', {}, 'Signed in until'), h('dd', {}, when(session.expires_at)));
  fill($('#plans-table tbody'), plans.plans.map((p) => h('tr', { 'aria-current': p.name === sub.tier ? 'true' : null },
    h('td', {}, p.name), h('td', {}, String(p.price_usd)), h('td', {}, String(p.account_limit)), h('td', {}, String(p.max_webhooks)))));
}
