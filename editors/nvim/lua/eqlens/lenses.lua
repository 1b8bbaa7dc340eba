-- Fetching each buffer's code lenses from the server and keeping the last
-- ones, which the virtual text and :EqlensDetails use.
local client = require('eqlens.client')
local config = require('eqlens.config')
local status = require('eqlens.status')
local virtual_text = require('eqlens.virtual_text')

local M = {}

-- The server follows each change of results with an `eqlens/status`
-- notification and a `workspace/codeLens/refresh` request: refreshes asked
-- for within this window make one request.
M.coalesce_ms = 30

--- bufnr → { lenses = CodeLens[], version = document version they are for,
---           seq = last request number, scheduled = a fetch is due }
local state = {}

local function state_of(bufnr)
  local st = state[bufnr]
  if not st then
    st = { lenses = {}, version = nil, seq = 0, scheduled = false }
    state[bufnr] = st
  end
  return st
end

local function fetch(bufnr)
  local st = state_of(bufnr)
  st.scheduled = false
  local c = client.get(bufnr)
  if not c or not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  st.seq = st.seq + 1
  local seq = st.seq
  client.request(c, 'textDocument/codeLens', { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, function(err, result)
    -- A later request supersedes this one.
    if err or seq ~= st.seq or not vim.api.nvim_buf_is_valid(bufnr) then
      return
    end
    -- The lens lines are those of the text the server last checked. Placed
    -- on newer text they would land on the wrong lines, whereas the marks
    -- already there have moved with the edits: keep those until the
    -- server's status for the current text arrives (it refreshes again).
    if not status.is_current(bufnr) then
      return
    end
    st.lenses = type(result) == 'table' and result or {}
    st.version = vim.lsp.util.buf_versions[bufnr]
    local corrected = status.reconcile(status.get(bufnr), st.lenses, virtual_text.kind)
    if corrected then
      status.set(bufnr, corrected)
    end
    if config.options.virtual_text then
      virtual_text.render(bufnr, st.lenses)
    end
    vim.api.nvim_exec_autocmds('User', {
      pattern = 'EqlensLenses',
      modeline = false,
      data = { buf = bufnr, lenses = st.lenses, version = st.version },
    })
  end, bufnr)
end

--- Asks for the buffer's lenses soon (several calls close together make
--- one request).
function M.refresh(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  local st = state_of(bufnr)
  if st.scheduled then
    return
  end
  st.scheduled = true
  vim.defer_fn(function()
    fetch(bufnr)
  end, M.coalesce_ms)
end

--- The last lenses received for a buffer, and the document version (LSP
--- version, as in vim.lsp.util.buf_versions) they are for.
---@return table[] lenses, integer|nil version
function M.get(bufnr)
  local st = state[bufnr]
  if not st then
    return {}, nil
  end
  return st.lenses, st.version
end

function M.forget(bufnr)
  state[bufnr] = nil
  virtual_text.clear(bufnr)
end

return M
