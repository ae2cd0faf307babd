// The accounts tab's forms: activate an account (POST /api/accounts, months × the month price
// debited) and start a free trial (POST /api/trials; docs/reseller.md "Accounts", "Trials").
import { h, list, when } from '/kit/shell.js'

export function createAccountForm (ui) {
  return ui.form({
    id: 'account-create-form',
    fields: [
      { label: 'Name', id: 'account-name', name: 'name', required: true, maxlength: 64, autocomplete: 'off' },
      { label: 'Password', id: 'account-password', name: 'password', type: 'password', required: true, autocomplete: 'new-password' },
      { label: 'Months', id: 'account-months', name: 'months', type: 'number', min: 1, max: 120, step: 1, value: 1, required: true },
      { label: 'Packages', id: 'account-packages', name: 'packages', placeholder: 'comma-separated; empty: panel default' }
    ],
    submit: h('button', { id: 'account-create-submit', type: 'submit' }, 'Create account'),
    onSubmit: (f) => {
      const body = { name: f.name.trim(), password: f.password, months: Number(f.months) }
      if (list(f.packages).length) body.packages = list(f.packages)
      return ui.api('POST', '/api/accounts', body)
    },
    done: (a) => 'Account ' + a.name + ' is active until ' + when(a.expiresAt),
    reset: true
  })
}

export function createTrialForm (ui) {
  return ui.form({
    id: 'trial-form',
    fields: [
      { label: 'Name', id: 'trial-name', name: 'name', required: true, maxlength: 64, autocomplete: 'off' },
      { label: 'Password', id: 'trial-password', name: 'password', type: 'password', required: true, autocomplete: 'new-password' }
    ],
    submit: h('button', { id: 'trial-submit', type: 'submit' }, 'Start trial'),
    onSubmit: (f) => ui.api('POST', '/api/trials', { name: f.name.trim(), password: f.password }),
    done: (a) => 'Trial ' + a.name + ' runs until ' + when(a.expiresAt),
    reset: true
  })
}
