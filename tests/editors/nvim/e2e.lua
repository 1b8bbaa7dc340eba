-- End-to-end: the plugin in a real Neovim against the real `eqlens serve`,
-- on the files make-fixtures.sh prepares in $EQLENS_TEST_ROOT:
--   java/  a git repository with A.java committed (sum, clamp, twice)
--   c/     oldV.c and newV.c, a pair for the `paired` baseline
local M = { name = 'e2e: eqlens serve in Neovim' }

-- How long one wait may take: checks take well under a second here, the
-- margin is for a slow, loaded CI machine.
local WAIT = tonumber(vim.env.EQLENS_TEST_WAIT_MS) or 120000

local eqlens = require('eqlens')
local client = require('eqlens.client')
local vt = require('eqlens.virtual_text')

-- vim.notify messages, in order (the plugin's and the server's
-- window/showMessage, which Neovim shows through vim.notify).
local notes = {}
local function record_notify()
  vim.notify = function(msg, level)
    table.insert(notes, { msg = tostring(msg), level = level })
  end
end

local function find_note(needle)
  for _, n in ipairs(notes) do
    if n.msg:find(needle, 1, true) then
      return n
    end
  end
end

-- Zero-based number of the first line of `buf` containing `needle`.
local function line_of(buf, needle)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l:find(needle, 1, true) then
      return i - 1
    end
  end
  error('not in the buffer: ' .. needle)
end

local function titles(lenses)
  local out = {}
  for _, l in ipairs(lenses) do
    table.insert(out, { line = l.range.start.line, title = l.command and l.command.title })
  end
  return out
end

local function lens_on(lenses, line)
  for _, l in ipairs(lenses) do
    if l.range.start.line == line then
      return l.command and l.command.title or ''
    end
  end
  return ''
end

local function describe(buf)
  return function()
    local lenses, version = eqlens.lenses(buf)
    return {
      status = eqlens.status_data(buf),
      buffer_version = vim.lsp.util.buf_versions[buf],
      lenses = titles(lenses),
      lens_version = version,
      notes = notes,
    }
  end
end

--- Waits until the server has finished checking the buffer's current text
--- and the plugin holds the lenses for it; returns those lenses.
local function settled(H, buf, what)
  return H.wait_for(what or 'the verdicts of the current text', WAIT, function()
    local st = eqlens.status_data(buf)
    local version = vim.lsp.util.buf_versions[buf]
    if not (st and st.state == 'done' and st.version == version) then
      return false
    end
    local lenses, lens_version = eqlens.lenses(buf)
    if lens_version ~= version or #lenses ~= st.changed then
      return false
    end
    for _, l in ipairs(lenses) do
      if (l.command and l.command.title or ''):find('checking', 1, true) then
        return false
      end
    end
    return lenses
  end, describe(buf))
end

-- The virtual text marks of a buffer: { [line] = {text, hl} }.
local function marks(buf)
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, vt.namespace, 0, -1, { details = true })) do
    local chunk = m[4].virt_text[1]
    out[m[2]] = { text = chunk[1], hl = chunk[2] }
  end
  return out
end

local function floating_windows()
  local wins = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      table.insert(wins, w)
    end
  end
  return wins
end

local function close_floats()
  for _, w in ipairs(floating_windows()) do
    vim.api.nvim_win_close(w, true)
  end
end

-- Text of the first floating window whose text contains `needle`.
local function float_with(needle)
  for _, w in ipairs(floating_windows()) do
    local text = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), '\n')
    if text:find(needle, 1, true) then
      return text
    end
  end
end

local function float_texts()
  local out = {}
  for _, w in ipairs(floating_windows()) do
    table.insert(out, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false))
  end
  return out
end

-- Hover through the user's path: cursor on (line, col), vim.lsp.buf.hover(),
-- then the text of the floating window that opens.
local function hover_text(H, win, line, col, needle)
  close_floats()
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_win_set_cursor(win, { line + 1, col })
  vim.lsp.buf.hover()
  return H.wait_for('a hover window containing ' .. needle, WAIT, function()
    return float_with(needle)
  end, float_texts)
end

-- Re-asks for the hover until it contains `needle` (the server re-checks
-- in the background after a command), or until `accept(value)` when given.
-- A hover of an interim verdict (a stronger check still running) is never
-- the one asked for.
local function hover_eventually(H, buf, win, line, col, needle, accept)
  local wanted = accept or function(value)
    return value:find(needle, 1, true) ~= nil
  end
  accept = function(value)
    return not value:find('A stronger check is still running', 1, true) and wanted(value)
  end
  return H.wait_for('a hover ' .. (needle and ('containing ' .. needle) or 'as expected'), WAIT, function()
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(buf) },
      position = { line = line, character = col },
    }
    local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, 10000) or {}
    for _, r in pairs(res) do
      local value = r.result and r.result.contents and r.result.contents.value
      if type(value) == 'string' and accept(value) then
        return value
      end
    end
  end, function()
    return { notes = notes, win = win }
  end)
end

local function set_visual_lines(first, last)
  vim.fn.setpos("'<", { 0, first, 1, 0 })
  vim.fn.setpos("'>", { 0, last, 1, 0 })
end

function M.run(H)
  local root = assert(vim.env.EQLENS_TEST_ROOT, 'EQLENS_TEST_ROOT not set')
  local bin = assert(vim.env.EQLENS_BIN, 'EQLENS_BIN not set')
  local java_path = root .. '/java/A.java'
  local committed = vim.fn.readfile(java_path)
  local buf, win, cex_a

  H.step('setup defines the commands', function()
    record_notify()
    eqlens.setup({ cmd = { bin, 'serve' }, settings = { checker = 'portfolio' } })
    for _, name in ipairs({
      'EqlensCheck', 'EqlensPin', 'EqlensUnpin', 'EqlensDiff', 'EqlensAbstract',
      'EqlensRefine', 'EqlensDetails', 'EqlensClearOverrides',
    }) do
      H.eq(vim.fn.exists(':' .. name), 2, ':' .. name .. ' defined')
    end
  end)

  H.step('opening the committed Java file attaches a client; nothing changed yet', function()
    vim.cmd.edit(vim.fn.fnameescape(java_path))
    buf, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
    H.eq(vim.bo[buf].filetype, 'java', 'filetype')
    local c = H.wait_for('an eqlens client on the buffer', WAIT, function()
      return client.get(buf)
    end)
    H.eq(c.config.root_dir, vim.fs.normalize(root .. '/java'), 'root dir: the git repository')
    -- Neovim does not offer it by default; without it the server sends no
    -- workspace/codeLens/refresh.
    H.eq(vim.tbl_get(c.capabilities, 'workspace', 'codeLens', 'refreshSupport'), true, 'codeLens refreshSupport')
    local lenses = settled(H, buf, 'the first check')
    H.eq(#lenses, 0, 'no lenses on the committed text')
    H.eq(eqlens.status_data(buf).baseline, 'HEAD', 'baseline label')
    H.eq(eqlens.status(), '≡ 0 ≢ 0 ? 0', 'statusline text')
  end)

  H.step('an edit: clamp is not equivalent, sum is, twice has no lens', function()
    -- The statusline text at each status, as a statusline would show it.
    local shown = {}
    local au = vim.api.nvim_create_autocmd('User', {
      pattern = 'EqlensStatus',
      callback = function(args)
        if args.data.buf == buf then
          table.insert(shown, eqlens.status(buf))
        end
      end,
    })
    vim.cmd('keeppatterns %s/return 10;/return 11;/')
    vim.cmd('keeppatterns %s/int s = a + b;/int s = b + a;/')
    local lenses = settled(H, buf)
    vim.api.nvim_del_autocmd(au)
    -- New methods to check: the server reports them pending first.
    local spinner = false
    for _, text in ipairs(shown) do
      local frame = text:match('^(%S+) ≡ %d+ ≢ %d+ %? %d+ · %d+ pending$')
      spinner = spinner or vim.tbl_contains(require('eqlens.status').spinner_frames, frame)
    end
    H.ok(spinner, 'a spinner while checking; statusline texts: %s', H.show(shown))
    local clamp_line = line_of(buf, 'static int clamp')
    local sum_line = line_of(buf, 'static int sum')
    local clamp = lens_on(lenses, clamp_line)
    H.ok(vim.startswith(clamp, '≢ not equivalent · a = '), 'clamp lens: %s', H.show(titles(lenses)))
    cex_a = tonumber(clamp:match('a = (%-?%d+)$'))
    H.ok(cex_a and cex_a > 10, 'the counterexample must take the changed branch: %s', clamp)
    H.ok(vim.startswith(lens_on(lenses, sum_line), '≡ equivalent · '), 'sum lens: %s', H.show(titles(lenses)))
    H.eq(#lenses, 2, 'lens count (twice is unchanged)')
    H.eq(eqlens.status(), '≡ 1 ≢ 1 ? 0', 'statusline text')
  end)

  H.step('verdicts as virtual text at the end of each changed method’s first line', function()
    local m = marks(buf)
    local clamp_line = line_of(buf, 'static int clamp')
    local sum_line = line_of(buf, 'static int sum')
    H.eq(m[clamp_line], { text = ('≢ not equivalent · a = %d'):format(cex_a), hl = 'EqlensNotEquivalent' }, 'clamp mark')
    H.ok(m[sum_line] and vim.startswith(m[sum_line].text, '≡ equivalent · '), 'sum mark: %s', H.show(m))
    H.eq(m[sum_line].hl, 'EqlensEquivalent', 'sum highlight')
    H.eq(vim.tbl_count(m), 2, 'mark count')
    local ext = vim.api.nvim_buf_get_extmarks(buf, vt.namespace, { clamp_line, 0 }, { clamp_line, -1 }, { details = true })
    H.eq(ext[1][4].virt_text_pos, 'eol', 'position')
  end)

  H.step('setup{ virtual_text = false } clears the marks; setup again draws them', function()
    local opts = { cmd = { bin, 'serve' }, settings = { checker = 'portfolio' } }
    eqlens.setup(vim.tbl_extend('force', opts, { virtual_text = false }))
    H.eq(vim.tbl_count(marks(buf)), 0, 'marks after switching off')
    eqlens.setup(opts)
    H.wait_for('the marks back', WAIT, function()
      return vim.tbl_count(marks(buf)) == 2
    end, describe(buf))
    H.eq(eqlens.status(0), '≡ 1 ≢ 1 ? 0', 'status(0) is the current buffer’s')
  end)

  H.step('a not-equivalent diagnostic on the changed return', function()
    local diags = vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.WARN })
    H.eq(#diags, 1, 'one warning: ' .. H.show(diags))
    local d = diags[1]
    H.eq(d.source, 'eqlens', 'source')
    H.eq(d.code, 'not-equivalent', 'code')
    H.eq(d.lnum, line_of(buf, 'return 11;'), 'line')
    H.eq(d.col, 12, 'column (the statement)')
    H.contains(d.message, 'clamp(1) is not equivalent to the baseline (HEAD)', 'message')
    H.contains(d.message, ('a = %d'):format(cex_a), 'message')
    H.contains(d.message, 'old returns 10, new returns 11', 'message')
  end)

  H.step('the diagnostic’s related location opens the baseline text', function()
    local d = vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.WARN })[1]
    local loc = vim.tbl_get(d, 'user_data', 'lsp', 'relatedInformation', 1, 'location')
    H.ok(loc and vim.startswith(loc.uri, 'eqlens-baseline://'), 'related location: %s', H.show(d))
    -- What Neovim does to jump to a location.
    vim.lsp.util.show_document(loc, 'utf-16', { focus = true })
    local bb = vim.api.nvim_get_current_buf()
    H.ok(bb ~= buf, 'a buffer of its own')
    H.eq(vim.api.nvim_buf_get_lines(bb, 0, -1, false), committed, 'baseline text = committed text')
    H.eq(vim.api.nvim_win_get_cursor(0)[1], loc.range.start.line + 1, 'cursor on the partner statement')
    H.contains(vim.api.nvim_get_current_line(), 'return 10;', 'the baseline’s statement')
    H.eq(vim.bo[bb].filetype, 'java', 'filetype')
    H.eq(vim.bo[bb].modifiable, false, 'read-only')
    vim.api.nvim_win_set_buf(win, buf)
    vim.api.nvim_buf_delete(bb, { force = true })
  end)

  H.step('hover on clamp shows the counterexample', function()
    local text = hover_text(H, win, line_of(buf, 'static int clamp'), 16, 'returns 11')
    for _, needle in ipairs({ ('a = %d'):format(cex_a), 'returns 10', 'returns 11', 'lines:' }) do
      H.contains(text, needle, 'hover')
    end
    close_floats()
  end)

  H.step(":'<,'>EqlensAbstract: the server's code action, an override the checker reports", function()
    local stmt = line_of(buf, 'int s = b + a;') + 1
    set_visual_lines(stmt, stmt)
    vim.cmd("'<,'>EqlensAbstract")
    local sum_line = line_of(buf, 'static int sum')
    local h = hover_eventually(H, buf, win, sum_line, 16, ('override abstract %d'):format(stmt))
    H.contains(h, 'equivalent', 'hover after abstracting')
    H.ok(find_note(('Abstract this block (line %d): re-checking'):format(stmt)), 'confirmation: %s', H.show(notes))
    local lenses = settled(H, buf)
    H.ok(vim.startswith(lens_on(lenses, sum_line), '≡ equivalent'), 'sum still proved: %s', H.show(titles(lenses)))
  end)

  H.step(":EqlensDetails shows the verdict with the override; :'<,'>EqlensRefine replaces it", function()
    local stmt = line_of(buf, 'int s = b + a;') + 1
    local sum_line = line_of(buf, 'static int sum')
    close_floats()
    vim.api.nvim_win_set_cursor(win, { stmt, 0 })
    vim.cmd('EqlensDetails')
    H.wait_for('a details window', WAIT, function()
      return float_with(('override abstract %d'):format(stmt))
    end, float_texts)
    close_floats()
    vim.api.nvim_set_current_win(win)
    set_visual_lines(stmt, stmt)
    vim.cmd("'<,'>EqlensRefine")
    hover_eventually(H, buf, win, sum_line, 16, ('override refine %d'):format(stmt))
    vim.cmd('EqlensClearOverrides')
    hover_eventually(H, buf, win, sum_line, 16, nil, function(h)
      return h:find('Proved', 1, true) and not h:find('override', 1, true)
    end)
  end)

  H.step(':EqlensCheck N re-checks with loop bound N; a bad N is refused', function()
    local sum_line = line_of(buf, 'static int sum')
    vim.api.nvim_set_current_win(win)
    vim.cmd('EqlensCheck 16')
    hover_eventually(H, buf, win, sum_line, 16, 'loop bound 16')
    vim.cmd('EqlensCheck lots')
    H.ok(find_note('EqlensCheck takes a loop bound (a number), got lots'), 'refusal: %s', H.show(notes))
    settled(H, buf)
  end)

  H.step('abstracting outside a changed method is refused with a message', function()
    local twice = line_of(buf, 'return x * 2;') + 1
    vim.cmd(('%dEqlensAbstract'):format(twice))
    H.wait_for('a warning', WAIT, function()
      return find_note(('lines %d-%d are not inside a changed method'):format(twice, twice))
    end, function()
      return notes
    end)
  end)

  H.step(':EqlensDiff opens the committed text in a diff split', function()
    local before = #vim.api.nvim_list_wins()
    vim.api.nvim_set_current_win(win)
    vim.cmd('EqlensDiff')
    local scratch = H.wait_for('the baseline window', WAIT, function()
      for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
        local b = vim.api.nvim_win_get_buf(w)
        if vim.api.nvim_buf_get_name(b) == 'eqlens://HEAD/A.java' then
          return b
        end
      end
    end)
    local scratch_win = vim.fn.bufwinid(scratch)
    H.eq(#vim.api.nvim_list_wins(), before + 1, 'one new window')
    H.eq(vim.api.nvim_buf_get_lines(scratch, 0, -1, false), committed, 'baseline text = committed text')
    H.eq(vim.bo[scratch].filetype, 'java', 'filetype')
    H.eq(vim.bo[scratch].modifiable, false, 'read-only scratch')
    H.eq(vim.wo[scratch_win].diff, true, 'baseline window in diff mode')
    H.eq(vim.wo[win].diff, true, 'source window in diff mode')
    H.eq(vim.api.nvim_win_get_position(scratch_win)[2] < vim.api.nvim_win_get_position(win)[2], true, 'baseline on the left')
    vim.api.nvim_win_close(scratch_win, true)
    H.eq(vim.api.nvim_buf_is_valid(scratch), false, 'scratch wiped with its window')
    H.eq(vim.wo[win].diff, false, 'diff ended in the source window')
  end)

  H.step(':EqlensPin makes the current text the baseline; :EqlensUnpin goes back to HEAD', function()
    vim.api.nvim_set_current_win(win)
    vim.cmd('EqlensPin')
    H.wait_for('no lenses once pinned', WAIT, function()
      local st = eqlens.status_data(buf)
      local lenses = eqlens.lenses(buf)
      return st.baseline == 'pinned' and st.state == 'done' and #lenses == 0 and vim.tbl_count(marks(buf)) == 0
    end, describe(buf))
    vim.cmd('EqlensUnpin')
    H.wait_for('HEAD again', WAIT, function()
      return eqlens.status_data(buf).baseline == 'HEAD'
    end, describe(buf))
    local lenses = settled(H, buf)
    H.eq(#lenses, 2, 'lenses back')
  end)

  H.step('marks move with an edit and are never drawn from lenses of older text', function()
    -- A long server debounce: a wide window in which the server has not
    -- seen the edit yet and its lenses are those of the older text.
    eqlens.set_settings({ debounceMs = 1500 })
    settled(H, buf)
    -- Every drawing of lenses, checked against the buffer at that moment.
    local draws = {}
    local au = vim.api.nvim_create_autocmd('User', {
      pattern = 'EqlensLenses',
      callback = function(args)
        if args.data.buf == buf then
          table.insert(draws, {
            clamp = line_of(buf, 'static int clamp'),
            sum = line_of(buf, 'static int sum'),
            marks = marks(buf),
          })
        end
      end,
    })
    local clamp_before = line_of(buf, 'static int clamp')
    vim.api.nvim_buf_set_lines(buf, 0, 0, false, { '// a line above everything' })
    -- The mark moved with its line at once (an extmark).
    local m = marks(buf)
    H.ok(m[clamp_before + 1] and vim.startswith(m[clamp_before + 1].text, '≢'), 'mark moved with the text: %s', H.show(m))
    -- What Neovim fires after a change in Normal mode: the plugin asks for
    -- lenses while the server still has the older text.
    vim.api.nvim_exec_autocmds('TextChanged', { buffer = buf })
    settled(H, buf)
    vim.api.nvim_del_autocmd(au)
    H.ok(#draws > 0, 'lenses were drawn after the re-check')
    for i, d in ipairs(draws) do
      local lines = vim.tbl_keys(d.marks)
      table.sort(lines)
      H.eq(lines, { d.sum, d.clamp }, ('drawing %d: marks only on the method lines of the text at the time'):format(i))
      -- The moved methods are checked again: "… checking" first.
      local kind = vt.kind(d.marks[d.clamp].text)
      H.ok(kind == 'not_equivalent' or kind == 'checking', 'drawing %d: clamp mark %s', i, H.show(d.marks))
    end
    H.eq(line_of(buf, 'static int clamp'), clamp_before + 1, 'clamp moved down')
    local m_after = marks(buf)
    H.ok(vim.startswith(m_after[clamp_before + 1].text, '≢'), 'clamp mark after the re-check: %s', H.show(m_after))
    eqlens.set_settings({ debounceMs = 300 })
  end)

  local c_buf
  H.step('a settings change reaches the server; a C pair gets its own client', function()
    eqlens.set_settings({ baseline = 'paired' })
    -- A.java has no partner file: the Java server says so.
    H.wait_for('the Java file to have no paired baseline', WAIT, function()
      local st = eqlens.status_data(buf)
      return st.state == 'idle' and type(st.note) == 'string' and st.note:find('no paired file for A.java', 1, true)
    end, describe(buf))
    H.eq(eqlens.status(buf):sub(1, 27), 'eqlens: no paired file for ', 'statusline says why')
    H.wait_for('the marks to go (no baseline, no verdicts)', WAIT, function()
      return vim.tbl_count(marks(buf)) == 0
    end, describe(buf))
    vim.cmd.edit(vim.fn.fnameescape(root .. '/c/newV.c'))
    c_buf = vim.api.nvim_get_current_buf()
    local lenses = settled(H, c_buf)
    H.eq(#lenses, 1, 'only f changed: ' .. H.show(titles(lenses)))
    H.ok(vim.startswith(lens_on(lenses, 0), '≢ not equivalent · x = '), 'f lens: %s', H.show(titles(lenses)))
    H.eq(marks(c_buf)[0].hl, 'EqlensNotEquivalent', 'f mark')
    local d = vim.diagnostic.get(c_buf, { severity = vim.diagnostic.severity.WARN })[1]
    H.ok(d and d.lnum == 2, 'diagnostic on `return x - 2;`: %s', H.show(d))
    local c_client = client.get(c_buf)
    H.ok(c_client and c_client.id ~= client.get(buf).id, 'a second client for the second root')
    H.eq(c_client.config.root_dir, vim.fs.normalize(root .. '/c'), 'root dir without markers: the file’s directory')
    local text = hover_text(H, vim.api.nvim_get_current_win(), 0, 4, 'old (oldV.c):')
    H.contains(text, 'new:', 'C hover')
    close_floats()
    H.eq(eqlens.status(c_buf), '≡ 0 ≢ 1 ? 0', 'statusline text')
  end)

  H.step(':checkhealth eqlens reports everything OK', function()
    vim.cmd('checkhealth eqlens')
    local hb = vim.api.nvim_get_current_buf()
    local text = table.concat(vim.api.nvim_buf_get_lines(hb, 0, -1, false), '\n')
    H.ok(not text:find('ERROR', 1, true) and not text:find('WARNING', 1, true), 'problems reported:\n%s', text)
    for _, needle in ipairs({
      'OK Neovim 0.',
      'OK server: eqlens ',
      'OK git version',
      'OK setup done',
      'attached (root ' .. vim.fs.normalize(root .. '/java'),
      'A.java',
      'newV.c',
    }) do
      H.contains(text, needle, 'checkhealth')
    end
    vim.cmd('tabclose')
  end)

  H.step(':helptags on doc/ succeeds, every command has a tag, vimdoc parses', function()
    local doc = vim.api.nvim_get_runtime_file('doc/eqlens.txt', false)[1]
    H.ok(doc, 'doc/eqlens.txt on the runtimepath')
    -- Neovim's own vimdoc grammar: an unclosed code span or example block
    -- is a parse error (and renders wrongly).
    local text = table.concat(vim.fn.readfile(doc), '\n') .. '\n'
    local bad = {}
    local function walk(node)
      if node:type() == 'ERROR' or node:missing() then
        table.insert(bad, ('line %d'):format(node:range() + 1))
      end
      for child in node:iter_children() do
        walk(child)
      end
    end
    walk(vim.treesitter.get_string_parser(text, 'vimdoc'):parse()[1]:root())
    H.eq(bad, {}, 'vimdoc parse errors')
    local dir = vim.fn.tempname() .. '/doc'
    vim.fn.mkdir(dir, 'p')
    vim.fn.writefile(vim.fn.readfile(doc), dir .. '/eqlens.txt')
    vim.v.errmsg = ''
    vim.cmd.helptags(vim.fn.fnameescape(dir))
    H.eq(vim.v.errmsg, '', ':helptags error')
    local tags = {}
    for _, l in ipairs(vim.fn.readfile(dir .. '/tags')) do
      tags[l:match('^[^\t]+')] = true
    end
    for name in pairs(vim.api.nvim_get_commands({})) do
      if vim.startswith(name, 'Eqlens') then
        H.ok(tags[':' .. name], 'no help tag for :%s', name)
      end
    end
    for _, t in ipairs({ 'eqlens', 'eqlens-setup', 'eqlens.status()', 'hl-EqlensNotEquivalent', 'eqlens-statusline' }) do
      H.ok(tags[t], 'no help tag %s', t)
    end
    vim.opt.rtp:append(vim.fs.dirname(dir))
    vim.cmd('help :EqlensAbstract')
    H.eq(vim.bo.filetype, 'help', 'help window')
    vim.cmd('helpclose')
  end)
end

return M
