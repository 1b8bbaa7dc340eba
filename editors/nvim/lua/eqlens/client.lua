-- The connection to `eqlens serve`: starting one client per project root
-- with vim.lsp.start, the server's two custom messages, and requests that
-- work on Neovim 0.10 and 0.11 alike.
local config = require('eqlens.config')
local status = require('eqlens.status')

local M = {}

M.name = 'eqlens'

-- 0.11 made client methods take self (client:request); on 0.10 they are
-- plain fields. Calling the 0.10 form on 0.11 prints deprecation warnings.
local has_method_syntax = vim.fn.has('nvim-0.11') == 1

function M.request(client, method, params, handler, bufnr)
  if has_method_syntax then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- Blocks until the answer (or timeout): { result =, err = } or nil, err.
function M.request_sync(client, method, params, timeout_ms, bufnr)
  if has_method_syntax then
    return client:request_sync(method, params, timeout_ms, bufnr)
  end
  return client.request_sync(method, params, timeout_ms, bufnr)
end

function M.notify(client, method, params)
  if has_method_syntax then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

--- The eqlens client attached to a buffer, or nil.
function M.get(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = M.name })[1]
end

function M.all()
  return vim.lsp.get_clients({ name = M.name })
end

--- Settings as the server wants them: a JSON object. An empty Lua table
--- would be encoded as `[]`, which the server rejects with a warning.
function M.settings_payload(settings)
  if settings == nil or next(settings) == nil then
    return vim.empty_dict()
  end
  return settings
end

--- The project root of a buffer: the nearest directory with a root marker
--- (.git, eqlens.toml), else the file's own directory.
function M.root_dir(bufnr)
  local root = vim.fs.root(bufnr, config.options.root_markers)
  return root or vim.fs.dirname(vim.api.nvim_buf_get_name(bufnr))
end

-- The buffer an `eqlens/status` is about, among those the client has (a
-- status for a document Neovim no longer shows is dropped, not reopened).
local function buffer_of(client, uri)
  for bufnr in pairs(client.attached_buffers or {}) do
    if vim.api.nvim_buf_is_valid(bufnr) and vim.uri_from_bufnr(bufnr) == uri then
      return bufnr
    end
  end
end

-- Server → client messages. Lenses are fetched again after each of them;
-- lenses.refresh coalesces the pair the server sends for one change.
local handlers = {
  ['eqlens/status'] = function(err, params, ctx)
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    if err or not client or type(params) ~= 'table' or type(params.uri) ~= 'string' then
      return
    end
    local bufnr = buffer_of(client, params.uri)
    if bufnr then
      status.set(bufnr, params)
      -- Required here, not at the top: lenses.lua requires this module.
      require('eqlens.lenses').refresh(bufnr)
    end
  end,
  -- Neovim (0.11) neither advertises nor handles this request; we do both.
  ['workspace/codeLens/refresh'] = function(_, _, ctx)
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    if client then
      for bufnr in pairs(client.attached_buffers or {}) do
        require('eqlens.lenses').refresh(bufnr)
      end
    end
    return vim.NIL
  end,
}

--- Starts (or reuses, for the same root) a client for a buffer and attaches
--- it. Returns the client id, or nil when the buffer is not a file or the
--- server command cannot be found (reported once).
function M.start(bufnr)
  local opts = config.options
  if vim.bo[bufnr].buftype ~= '' or vim.api.nvim_buf_get_name(bufnr) == '' then
    return nil
  end
  if vim.fn.executable(opts.cmd[1]) == 0 then
    vim.notify_once(
      ("eqlens: server command '%s' not found: install eqlens or set cmd in require('eqlens').setup{}"):format(
        opts.cmd[1]
      ),
      vim.log.levels.ERROR
    )
    return nil
  end
  local capabilities = vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(), {
    workspace = { codeLens = { refreshSupport = true } },
  })
  return vim.lsp.start({
    name = M.name,
    cmd = opts.cmd,
    root_dir = M.root_dir(bufnr),
    init_options = M.settings_payload(opts.settings),
    capabilities = capabilities,
    handlers = handlers,
  }, { bufnr = bufnr })
end

--- Sends the settings in force to every running client (the server re-reads
--- baselines and re-checks its open documents).
function M.push_settings()
  for _, client in ipairs(M.all()) do
    M.notify(client, 'workspace/didChangeConfiguration', {
      settings = { eqlens = M.settings_payload(config.options.settings) },
    })
  end
end

return M
