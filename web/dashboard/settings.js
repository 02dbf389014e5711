// settings.js: the six notification settings of spec 1, each a checkbox
// saved as it changes (PATCH /v1/settings).
import { call } from '../shared/api.js';
import { h, $, fill, say } from '../shared/dom.js';

const fields = [
  ['exclude_replies', 'Skip replies'],
  ['contracts_only', 'Only posts with a contract address'],
  ['notifications_paused', 'Pause all notifications'],
  ['exclude_reposts', 'Skip reposts'],
  ['auto_topics', 'A forum topic per tracked account (groups)'],
  ['contract_topic', 'Contract-address posts to their own topic (groups)'],
];

export async function loadSettings(onAuthLost) {
  const msg = $('#settings-msg');
  let s;
  try {
    s = await call('GET', '/v1/settings');
  } catch (e) {
    if (e.status === 401) onAuthLost(); else say(msg, e.message, 'error');
    return;
  }
  fill($('#settings-form'), fields.map(([name, label]) => {
    const box = h('input', { type: 'checkbox', id: 'set-' + name, name, checked: s[name] });
    box.addEventListener('change', async () => {
      try {
        await call('PATCH', '/v1/settings', { body: { [name]: box.checked } });
        say(msg, `Saved: ${label.toLowerCase()} ${box.checked ? 'on' : 'off'}.`, 'ok');
      } catch (e) {
        box.checked = !box.checked;
        if (e.status === 401) onAuthLost(); else say(msg, e.message, 'error');
      }
    });
    return h('label', { class: 'check', for: 'set-' + name }, box, h('span', {}, label, h('small', {}, name)));
  }));
}
