-- The baseline the server compares a file with (`eqlens/baseline`), seen
-- two ways: :EqlensDiff, and the buffers of `eqlens-baseline://` URIs (where
-- the server's diagnostics point for a baseline that is not a file).
local client = require('eqlens.client')

local M = {}

local function notify(msg, level)
  vim.notify('eqlens: ' .. msg, level or vim.log.levels.INFO)
end

--- :EqlensDiff: the baseline in a scratch buffer, diffed against the
--- buffer in a vertical split (baseline on the left, like `git diff`).
function M.open(bufnr)
  local c = client.get(bufnr)
  if not c then
    notify('no eqlens server is attached to this buffer', vim.log.levels.WARN)
    return
  end
  client.request(c, 'eqlens/baseline', { uri = vim.uri_from_bufnr(bufnr) }, function(err, result)
    if err then
      notify('eqlens/baseline failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if type(result) ~= 'table' or type(result.text) ~= 'string' then
      local reason = type(result) == 'table' and result.reason or nil
      notify('no baseline to diff against: ' .. (type(reason) == 'string' and reason or 'unknown reason'), vim.log.levels.WARN)
      return
    end
    M.show(bufnr, result.text, type(result.label) == 'string' and result.label or 'baseline')
  end, bufnr)
end

--- Shows `text` as the baseline of `bufnr`: a read-only scratch buffer in a
--- vertical split to the left of the buffer's window, both in diff mode.
--- Returns the scratch buffer.
function M.show(bufnr, text, label)
  -- The current window if it shows the buffer (the request was async).
  local source_win = vim.api.nvim_win_get_buf(0) == bufnr and vim.api.nvim_get_current_win() or vim.fn.bufwinid(bufnr)
  if source_win == -1 then
    return
  end
  vim.api.nvim_set_current_win(source_win)
  local name = ('eqlens://%s/%s'):format(label, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':t'))
  -- A second :EqlensDiff replaces the first view rather than failing on
  -- the name.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b) == name then
      vim.api.nvim_buf_delete(b, { force = true })
    end
  end
  vim.cmd('leftabove vertical new')
  local scratch = vim.api.nvim_get_current_buf()
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines) -- the final newline ends the last line
  end
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, lines)
  vim.bo[scratch].buftype = 'nofile'
  vim.bo[scratch].bufhidden = 'wipe'
  vim.bo[scratch].swapfile = false
  vim.bo[scratch].modifiable = false
  vim.api.nvim_buf_set_name(scratch, name)
  vim.bo[scratch].filetype = vim.bo[bufnr].filetype
  vim.cmd('diffthis')
  vim.api.nvim_win_call(source_win, function()
    vim.cmd('diffthis')
  end)
  -- Closing the baseline ends the diff in the source window too.
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = scratch,
    once = true,
    callback = function()
      if vim.api.nvim_win_is_valid(source_win) then
        vim.api.nvim_win_call(source_win, function()
          vim.cmd('diffoff')
        end)
      end
    end,
  })
  return scratch
end

local SCHEME = 'eqlens-baseline://'

--- The `file://` URI of the document whose baseline an
--- `eqlens-baseline://<path>?<label>` URI names (the server builds it from
--- that document's URI).
function M.document_uri(baseline_uri)
  if not vim.startswith(baseline_uri, SCHEME) then
    return nil
  end
  local rest = baseline_uri:sub(#SCHEME + 1):gsub('%?[^?/]*$', '')
  return 'file://' .. rest
end

--- Fills the buffer of an `eqlens-baseline://` URI (BufReadCmd): the
--- baseline text of the document, which must be open with a server.
function M.read(buf, name)
  local doc_uri = M.document_uri(name)
  local doc_buf
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if doc_uri and vim.api.nvim_buf_is_loaded(b) and vim.uri_from_bufnr(b) == doc_uri then
      doc_buf = b
    end
  end
  local c = doc_buf and client.get(doc_buf)
  local lines, err
  if not c then
    err = 'open ' .. (doc_uri and vim.uri_to_fname(doc_uri) or name) .. ' first: its server has the baseline'
  else
    -- Synchronous: BufReadCmd must fill the buffer before it returns.
    local response, request_err = client.request_sync(c, 'eqlens/baseline', { uri = doc_uri }, 10000, doc_buf)
    local result = response and response.result
    if type(result) == 'table' and type(result.text) == 'string' then
      lines = vim.split(result.text, '\n', { plain = true })
      if lines[#lines] == '' then
        table.remove(lines)
      end
    else
      err = request_err or (response and response.err and response.err.message)
        or (type(result) == 'table' and type(result.reason) == 'string' and result.reason)
        or 'no baseline'
    end
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines or {})
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  if lines then
    vim.bo[buf].filetype = vim.bo[doc_buf].filetype
  else
    notify('no baseline for ' .. name .. ': ' .. tostring(err), vim.log.levels.WARN)
  end
end

return M
