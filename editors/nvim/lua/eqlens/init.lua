-- eqlens for Neovim: is the new version of each method equivalent to its
-- baseline? Starts `eqlens serve` for Java and C buffers and shows its
-- verdicts. See :help eqlens.
local client = require('eqlens.client')
local commands = require('eqlens.commands')
local config = require('eqlens.config')
local lenses = require('eqlens.lenses')
local status = require('eqlens.status')
local virtual_text = require('eqlens.virtual_text')

local M = {}

local group = vim.api.nvim_create_augroup('eqlens', { clear = true })

-- nil and 0 mean the current buffer, as in Neovim's API.
local function resolve(bufnr)
  if bufnr == nil or bufnr == 0 then
    return vim.api.nvim_get_current_buf()
  end
  return bufnr
end

local function is_ours(args)
  local c = args.data and vim.lsp.get_client_by_id(args.data.client_id)
  return c ~= nil and c.name == client.name
end

local function define_autocmds()
  vim.api.nvim_clear_autocmds({ group = group })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.options.filetypes,
    callback = function(args)
      client.start(args.buf)
    end,
  })
  vim.api.nvim_create_autocmd('LspAttach', {
    group = group,
    callback = function(args)
      if is_ours(args) then
        lenses.refresh(args.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd('LspDetach', {
    group = group,
    callback = function(args)
      if is_ours(args) then
        lenses.forget(args.buf)
        status.forget(args.buf)
      end
    end,
  })
  -- Coming back to a buffer, or finishing an edit: lenses again. They are
  -- shown only once the server has checked the current text (lenses.lua).
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged' }, {
    group = group,
    callback = function(args)
      if client.get(args.buf) then
        lenses.refresh(args.buf)
      end
    end,
  })
  -- Where the server's diagnostics point for a baseline that is not a
  -- file (related information): its text, from the server.
  vim.api.nvim_create_autocmd('BufReadCmd', {
    group = group,
    pattern = 'eqlens-baseline://*',
    callback = function(args)
      require('eqlens.baseline').read(args.buf, args.match)
    end,
  })
  -- A colour scheme clears highlight groups, our default links included.
  vim.api.nvim_create_autocmd('ColorScheme', {
    group = group,
    callback = virtual_text.define_highlights,
  })
end

--- Configures the plugin. Calling it again replaces the options (those not
--- given return to their defaults); settings that differ from the previous
--- call are sent to the running servers.
---@param opts table|nil see :help eqlens-setup
function M.setup(opts)
  local before = vim.deepcopy(config.options.settings)
  config.apply(opts)
  virtual_text.define_highlights()
  commands.define()
  define_autocmds()
  -- The virtual text switched off or on: clear it, or draw it again.
  for _, c in ipairs(client.all()) do
    for bufnr in pairs(c.attached_buffers or {}) do
      if config.options.virtual_text then
        lenses.refresh(bufnr)
      else
        virtual_text.clear(bufnr)
      end
    end
  end
  if not vim.deep_equal(before, config.options.settings) then
    client.push_settings()
  end
  -- Buffers opened before setup (lazy loading) get a client too.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(config.options.filetypes, vim.bo[bufnr].filetype) then
      client.start(bufnr)
    end
  end
end

--- Changes some server settings (merged over the current ones) and sends
--- them to every running server, which re-checks its documents.
---@param settings table e.g. { baseline = 'paired' }
function M.set_settings(settings)
  config.options.settings = vim.tbl_extend('force', config.options.settings, settings or {})
  client.push_settings()
end

--- Statusline text for a buffer (default: current): "≡ 4 ≢ 1 ? 0", a
--- spinner while checking, "eqlens: <why>" when nothing is checked, "" for
--- buffers without eqlens.
function M.status(bufnr)
  return status.text(resolve(bufnr))
end

--- The raw `eqlens/status` params of a buffer (or nil).
function M.status_data(bufnr)
  return status.get(resolve(bufnr))
end

--- The code lenses last shown for a buffer (LSP CodeLens objects), and the
--- document version they are for.
function M.lenses(bufnr)
  return lenses.get(resolve(bufnr))
end

--- Fetches the buffer's lenses again (and redraws the virtual text).
function M.refresh(bufnr)
  lenses.refresh(resolve(bufnr))
end

return M
