-- Unit tests of the plugin's own logic: no server involved.
local M = { name = 'unit: plugin logic' }

function M.run(H)
  local status = require('eqlens.status')
  local vt = require('eqlens.virtual_text')
  local config = require('eqlens.config')
  local client = require('eqlens.client')
  local commands = require('eqlens.commands')

  H.step('status text: done, checking with spinner, idle, none', function()
    local done = { state = 'done', equivalent = 4, notEquivalent = 1, unknown = 0, pending = 0, changed = 5 }
    H.eq(status.format(done, '⠙'), '≡ 4 ≢ 1 ? 0', 'done')
    local checking = { state = 'checking', equivalent = 3, notEquivalent = 1, unknown = 0, pending = 2 }
    H.eq(status.format(checking, '⠙'), '⠙ ≡ 3 ≢ 1 ? 0 · 2 pending', 'checking')
    H.eq(
      status.format({ state = 'idle', note = 'new file: not in HEAD, nothing to compare' }),
      'eqlens: new file: not in HEAD, nothing to compare',
      'idle with a note'
    )
    -- JSON null arrives as vim.NIL, not nil.
    H.eq(status.format({ state = 'idle', note = vim.NIL }), 'eqlens: nothing to check', 'idle, null note')
    H.eq(status.format(nil), '', 'no status')
    H.eq(status.format({ state = 'done' }), '≡ 0 ≢ 0 ? 0', 'missing counts are zero')
  end)

  H.step('spinner advances one frame per interval and wraps', function()
    local step = status.spinner_interval_ms * 1e6
    local seen = {}
    for i = 0, #status.spinner_frames do
      seen[i] = status.frame_at(i * step + 1)
    end
    H.eq(seen[0], status.spinner_frames[1], 'first frame')
    H.eq(seen[1], status.spinner_frames[2], 'second frame')
    H.eq(seen[#status.spinner_frames], status.spinner_frames[1], 'wraps around')
  end)

  H.step('the spinner runs while a buffer is being checked, and only then', function()
    local buf = vim.api.nvim_create_buf(false, true)
    local redraws = 0
    local au = vim.api.nvim_create_autocmd('User', {
      pattern = 'EqlensStatus',
      callback = function()
        redraws = redraws + 1
      end,
    })
    status.set(buf, { state = 'checking', pending = 1 })
    H.eq(status.spinning(), true, 'spinning while checking')
    H.eq(redraws, 1, 'User EqlensStatus fired')
    status.set(buf, { state = 'done' })
    H.eq(status.spinning(), false, 'stopped when done')
    status.set(buf, { state = 'checking', pending = 1 })
    vim.api.nvim_buf_delete(buf, { force = true })
    -- The timer notices that the only checking buffer is gone.
    H.wait_for('the spinner to stop', 5000, function()
      return not status.spinning()
    end)
    vim.api.nvim_del_autocmd(au)
  end)

  H.step('a checking status that the lenses show finished is corrected', function()
    local function lens(title)
      return { range = { start = { line = 0, character = 0 } }, command = { title = title } }
    end
    -- What the server sent last (an older snapshot), and the lenses after.
    local stale = { state = 'checking', version = 6, changed = 3, equivalent = 1, notEquivalent = 0, unknown = 0, pending = 2 }
    local finished = {
      lens('≡ equivalent · ardiff · 35 ms'),
      lens('≢ not equivalent · a = 255'),
      lens('≡ equivalent up to 8 iterations · symbolic · 3 ms'),
      lens('unchanged'),
    }
    H.eq(status.reconcile(stale, finished, vt.kind), {
      state = 'done', version = 6, changed = 3, equivalent = 2, notEquivalent = 1, unknown = 0, pending = 0,
    }, 'corrected')
    H.eq(stale.state, 'checking', 'the original is not modified')
    H.eq(status.reconcile(stale, { lens('≡ equivalent · x'), lens('… checking'), lens('? unknown · timeout') }, vt.kind), nil, 'still checking')
    H.eq(status.reconcile(stale, {}, vt.kind), nil, 'no lenses (lens = "off"): no evidence')
    H.eq(status.reconcile({ state = 'done', changed = 1 }, { lens('≢ not equivalent · a = 1') }, vt.kind), nil, 'done already')
    H.eq(status.reconcile(nil, finished, vt.kind), nil, 'no status')
  end)

  H.step('status is current only for the version the server checked', function()
    local buf = vim.api.nvim_create_buf(false, true)
    vim.lsp.util.buf_versions[buf] = 7
    status.set(buf, { state = 'done', version = 6 })
    H.eq(status.is_current(buf), false, 'older status')
    status.set(buf, { state = 'done', version = 7 })
    H.eq(status.is_current(buf), true, 'same version')
    status.forget(buf)
    H.eq(status.is_current(buf), false, 'forgotten')
    vim.lsp.util.buf_versions[buf] = nil
    vim.api.nvim_buf_delete(buf, { force = true })
  end)

  H.step('verdict kind of every lens title form in docs/server.md', function()
    local cases = {
      ['≡ equivalent · ardiff · 2 refinements · 41 ms'] = 'equivalent',
      ['≡ equivalent up to 8 iterations · symbolic · 3 ms'] = 'bounded',
      ['≢ not equivalent · a = 11'] = 'not_equivalent',
      ['? unknown · timeout after 10000 ms'] = 'unknown',
      ['? unsupported · syntax error at 3:5 (new version)'] = 'unknown',
      ['… checking'] = 'checking',
      ['unchanged'] = 'unchanged',
      ['something new'] = 'unknown',
    }
    for title, kind in pairs(cases) do
      H.eq(vt.kind(title), kind, 'kind of ' .. title)
    end
  end)

  H.step('lenses map to one sorted, coloured mark per line', function()
    local function lens(line, title)
      return {
        range = { start = { line = line, character = 0 }, ['end'] = { line = line, character = 0 } },
        command = title and { title = title, command = 'eqlens.showDetails' } or nil,
      }
    end
    local marks = vt.marks({
      lens(6, '≢ not equivalent · a = 11'),
      lens(1, '≡ equivalent · portfolio · 5 ms'),
      lens(6, '? unknown · timeout'),
      lens(9, nil), -- unresolved lens: nothing to show
      { range = vim.NIL, command = vim.NIL },
    })
    H.eq(marks, {
      { line = 1, text = '≡ equivalent · portfolio · 5 ms', hl = 'EqlensEquivalent' },
      { line = 6, text = '≢ not equivalent · a = 11 | ? unknown · timeout', hl = 'EqlensNotEquivalent' },
    }, 'marks')
    H.eq(vt.marks(nil), {}, 'no lenses')
    H.eq(vt.marks(vim.NIL), {}, 'null lenses')
  end)

  H.step('virtual text is placed at line ends; lenses past the end are skipped', function()
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { 'a', 'b', 'c' })
    local function lens(line, title)
      return { range = { start = { line = line, character = 0 } }, command = { title = title } }
    end
    vt.render(buf, { lens(1, '≡ equivalent · x'), lens(5, '≢ not equivalent · y = 1') })
    local marks = vim.api.nvim_buf_get_extmarks(buf, vt.namespace, 0, -1, { details = true })
    H.eq(#marks, 1, 'one mark (the other lens is past the end)')
    H.eq(marks[1][2], 1, 'mark line')
    H.eq(marks[1][4].virt_text, { { '≡ equivalent · x', 'EqlensEquivalent' } }, 'mark text')
    H.eq(marks[1][4].virt_text_pos, 'eol', 'at the end of the line')
    vt.render(buf, {})
    H.eq(#vim.api.nvim_buf_get_extmarks(buf, vt.namespace, 0, -1, {}), 0, 'cleared by an empty list')
    vim.api.nvim_buf_delete(buf, { force = true })
  end)

  H.step('highlight groups default-link and yield to the user’s', function()
    vim.api.nvim_set_hl(0, 'EqlensNotEquivalent', { link = 'ErrorMsg' })
    vt.define_highlights()
    H.eq(vim.api.nvim_get_hl(0, { name = 'EqlensNotEquivalent' }).link, 'ErrorMsg', 'user link kept')
    H.eq(vim.api.nvim_get_hl(0, { name = 'EqlensEquivalent' }).link, 'DiagnosticOk', 'default link')
    vim.cmd('highlight clear EqlensNotEquivalent') -- as a colour scheme does
    vt.define_highlights()
    H.eq(vim.api.nvim_get_hl(0, { name = 'EqlensNotEquivalent' }).link, 'DiagnosticWarn', 'default link again')
  end)

  H.step('options: lists replace the defaults, bad values are errors', function()
    local o = config.apply({ cmd = { '/x/eqlens', 'serve', '--flag' }, filetypes = { 'c' }, settings = { loopBound = 4 } })
    H.eq(o.cmd, { '/x/eqlens', 'serve', '--flag' }, 'cmd')
    H.eq(o.filetypes, { 'c' }, 'filetypes replaced, not merged')
    H.eq(o.settings, { loopBound = 4 }, 'settings')
    H.eq(o.virtual_text, true, 'default kept')
    o = config.apply({ cmd = { 'e' } })
    H.eq(o.cmd, { 'e' }, 'a shorter cmd does not keep the default’s tail')
    for _, bad in ipairs({ { cmd = 'eqlens serve' }, { cmd = {} }, { filetypes = { 1 } }, { settings = 'x' }, { virtual_text = 1 } }) do
      local ok, err = pcall(config.apply, bad)
      H.ok(not ok, 'accepted bad options %s', H.show(bad))
      H.contains(tostring(err), 'eqlens: option', 'error for ' .. H.show(bad))
    end
    config.apply({})
    H.eq(config.options, config.defaults, 'back to the defaults')
  end)

  H.step('settings are always sent as a JSON object', function()
    H.eq(vim.json.encode(client.settings_payload({})), '{}', 'empty settings')
    H.eq(vim.json.encode(client.settings_payload(nil)), '{}', 'no settings')
    H.eq(vim.json.decode(vim.json.encode(client.settings_payload({ baseline = 'paired' }))), { baseline = 'paired' }, 'settings')
  end)

  H.step('a line range covers whole lines as the server reads them', function()
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { 'one', 'two', 'three' })
    H.eq(commands.line_range(buf, 2, 2), {
      start = { line = 1, character = 0 },
      ['end'] = { line = 2, character = 0 },
    }, 'one middle line')
    H.eq(commands.line_range(buf, 1, 3), {
      start = { line = 0, character = 0 },
      ['end'] = { line = 2, character = 5 },
    }, 'up to the last line')
    vim.api.nvim_buf_delete(buf, { force = true })
  end)

  H.step('a baseline URI names its document', function()
    local baseline = require('eqlens.baseline')
    H.eq(baseline.document_uri('eqlens-baseline:///tmp/r/A.java?HEAD'), 'file:///tmp/r/A.java', 'git')
    H.eq(baseline.document_uri('eqlens-baseline:///tmp/a%20b/A.java?pinned'), 'file:///tmp/a%20b/A.java', 'encoded path')
    H.eq(baseline.document_uri('file:///tmp/r/A.java'), nil, 'another scheme')
  end)

  H.step('actions are found by command, as CodeAction or bare Command', function()
    local actions = {
      { title = 'Pin', command = { command = 'eqlens.pinBaseline', arguments = { {} } } },
      { title = 'Refine', command = 'eqlens.refineBlock', arguments = { { method = 'f' } } },
    }
    local a, cmd = commands.find_action(actions, 'eqlens.refineBlock')
    H.eq(a.title, 'Refine', 'bare command')
    H.eq(cmd.arguments[1].method, 'f', 'its arguments')
    a, cmd = commands.find_action(actions, 'eqlens.pinBaseline')
    H.eq(cmd.command, 'eqlens.pinBaseline', 'code action command')
    H.eq(commands.find_action(actions, 'eqlens.abstractBlock'), nil, 'absent')
  end)
end

return M
