-- The :Eqlens* user commands. Each sends the server one of its commands
-- (docs/server.md); where a method and lines are involved, the server's
-- own code actions supply the arguments, so that what "the method at these
-- lines" means is decided in one place, the server.
local client = require('eqlens.client')

local M = {}

local function notify(msg, level)
  vim.notify('eqlens: ' .. msg, level or vim.log.levels.INFO)
end

-- The buffer's client, or nil after telling the user why there is none.
local function client_for(bufnr)
  local c = client.get(bufnr)
  if not c then
    notify('no eqlens server is attached to this buffer (a Java or C file?)', vim.log.levels.WARN)
  end
  return c
end

local function uri_of(bufnr)
  return vim.uri_from_bufnr(bufnr)
end

--- Runs a server command; `on_result(result)` gets the command's result
--- when it succeeded. Errors are reported to the user.
function M.execute(bufnr, command, args, on_result)
  local c = client_for(bufnr)
  if not c then
    return
  end
  client.request(c, 'workspace/executeCommand', { command = command, arguments = { args } }, function(err, result)
    if err then
      notify(('%s failed: %s'):format(command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif on_result then
      on_result(result)
    end
  end, bufnr)
end

--- The LSP range covering whole lines line1..line2 (one-based, inclusive).
--- It ends at the start of the next line, which the server reads as "up to
--- line2"; on the last line it ends at the line's end (a byte count: past
--- the end in UTF-16 terms at worst, which LSP clamps).
function M.line_range(bufnr, line1, line2)
  local line_count = vim.api.nvim_buf_line_count(bufnr)
  local finish
  if line2 < line_count then
    finish = { line = line2, character = 0 }
  else
    local last = vim.api.nvim_buf_get_lines(bufnr, line2 - 1, line2, false)[1] or ''
    finish = { line = line2 - 1, character = #last }
  end
  return { start = { line = line1 - 1, character = 0 }, ['end'] = finish }
end

--- Asks the server for its code actions on lines line1..line2 and gives
--- `on_actions` the list (possibly empty).
function M.code_actions(bufnr, line1, line2, on_actions)
  local c = client_for(bufnr)
  if not c then
    return
  end
  local params = {
    textDocument = { uri = uri_of(bufnr) },
    range = M.line_range(bufnr, line1, line2),
    context = { diagnostics = {} },
  }
  client.request(c, 'textDocument/codeAction', params, function(err, actions)
    if err then
      notify('code actions failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    on_actions(type(actions) == 'table' and actions or {})
  end, bufnr)
end

--- The first action (CodeAction or bare Command) that runs `command`.
function M.find_action(actions, command)
  for _, a in ipairs(actions) do
    local cmd = type(a.command) == 'table' and a.command or a
    if cmd.command == command then
      return a, cmd
    end
  end
end

local block_commands = {
  abstract = 'eqlens.abstractBlock',
  refine = 'eqlens.refineBlock',
}

--- :EqlensAbstract / :EqlensRefine on lines line1..line2.
---@param which 'abstract'|'refine'
function M.block(bufnr, line1, line2, which)
  local wanted = block_commands[which]
  M.code_actions(bufnr, line1, line2, function(actions)
    local action, cmd = M.find_action(actions, wanted)
    if not action then
      notify(('lines %d-%d are not inside a changed method'):format(line1, line2), vim.log.levels.WARN)
      return
    end
    M.execute(bufnr, cmd.command, cmd.arguments and cmd.arguments[1], function()
      notify(action.title .. ': re-checking')
    end)
  end)
end

--- :EqlensDetails: the verdict of the changed method under the cursor in a
--- floating window (the server's `eqlens.showDetails` markdown).
function M.details(bufnr, line)
  M.code_actions(bufnr, line, line, function(actions)
    -- Any method-scoped action names the method; abstractBlock is one.
    local _, cmd = M.find_action(actions, 'eqlens.abstractBlock')
    local target = cmd and cmd.arguments and cmd.arguments[1]
    if not target then
      notify('the cursor is not inside a changed method', vim.log.levels.WARN)
      return
    end
    -- quiet: the float shows the details; no echo from the server too.
    local args = { uri = target.uri, method = target.method, arity = target.arity, quiet = true }
    M.execute(bufnr, 'eqlens.showDetails', args, function(result)
      if type(result) ~= 'table' or type(result.markdown) ~= 'string' then
        notify(('%s(%d) has not been checked yet'):format(target.method, target.arity))
        return
      end
      vim.lsp.util.open_floating_preview(vim.split(result.markdown, '\n'), 'markdown', {
        border = 'rounded',
        focus_id = 'eqlens-details',
      })
    end)
  end)
end

function M.define()
  local function cmd(name, fn, opts)
    vim.api.nvim_create_user_command(name, fn, opts)
  end
  local cur = vim.api.nvim_get_current_buf
  cmd('EqlensCheck', function(o)
    local args = { uri = uri_of(cur()) }
    if o.args ~= '' then
      args.loopBound = tonumber(o.args)
      if not args.loopBound then
        notify('EqlensCheck takes a loop bound (a number), got ' .. o.args, vim.log.levels.ERROR)
        return
      end
    end
    M.execute(cur(), 'eqlens.recheck', args)
  end, { nargs = '?', desc = 'eqlens: re-read the baseline and re-check (optional loop bound)' })
  cmd('EqlensPin', function()
    M.execute(cur(), 'eqlens.pinBaseline', { uri = uri_of(cur()) }, function()
      notify('pinned the current text as the baseline')
    end)
  end, { desc = 'eqlens: pin the current text as this file’s baseline' })
  cmd('EqlensUnpin', function()
    M.execute(cur(), 'eqlens.unpinBaseline', { uri = uri_of(cur()) }, function()
      notify('unpinned: back to the configured baseline')
    end)
  end, { desc = 'eqlens: drop the pinned baseline' })
  cmd('EqlensClearOverrides', function()
    M.execute(cur(), 'eqlens.clearOverrides', { uri = uri_of(cur()) }, function()
      notify('cleared the abstract/refine overrides of this file')
    end)
  end, { desc = 'eqlens: drop every abstract/refine override of this file' })
  cmd('EqlensDiff', function()
    require('eqlens.baseline').open(cur())
  end, { desc = 'eqlens: diff against the baseline' })
  cmd('EqlensDetails', function()
    M.details(cur(), vim.api.nvim_win_get_cursor(0)[1])
  end, { desc = 'eqlens: details of the verdict of the method under the cursor' })
  cmd('EqlensAbstract', function(o)
    M.block(cur(), o.line1, o.line2, 'abstract')
  end, { range = true, desc = 'eqlens: keep the common code on these lines abstract' })
  cmd('EqlensRefine', function(o)
    M.block(cur(), o.line1, o.line2, 'refine')
  end, { range = true, desc = 'eqlens: keep the code on these lines concrete' })
end

return M
