-- The plugin's options: defaults, and the values in force after setup().
-- Kept apart from init.lua so that every module can read them without a
-- require cycle.
local M = {}

M.defaults = {
  -- The server command; the first word is looked up on PATH (as
  -- nvim-lspconfig does), or give an absolute path.
  cmd = { 'eqlens', 'serve' },
  -- Filetypes whose buffers get a client.
  filetypes = { 'java', 'c' },
  -- Server settings (docs/server.md, "Settings"): sent as
  -- initializationOptions and, after set_settings(), as
  -- workspace/didChangeConfiguration.
  settings = {},
  -- Show each changed method's verdict at the end of its first line.
  virtual_text = true,
  -- Files that mark a project root; else the file's own directory.
  root_markers = { '.git', 'eqlens.toml' },
}

M.options = vim.deepcopy(M.defaults)

local function is_string_list(v)
  if type(v) ~= 'table' or #v == 0 then
    return false
  end
  for _, s in ipairs(v) do
    if type(s) ~= 'string' then
      return false
    end
  end
  return true
end

--- Merges user options over the defaults. Lists (cmd, filetypes,
--- root_markers) are replaced whole, never merged index by index.
--- A bad option is an error naming it, raised before anything changes.
function M.apply(user)
  user = user or {}
  if type(user) ~= 'table' then
    error('eqlens: setup() takes a table of options', 2)
  end
  for _, list in ipairs({ 'cmd', 'filetypes', 'root_markers' }) do
    if user[list] ~= nil and not is_string_list(user[list]) then
      error(('eqlens: option %s must be a non-empty list of strings'):format(list), 2)
    end
  end
  if user.settings ~= nil and type(user.settings) ~= 'table' then
    error('eqlens: option settings must be a table', 2)
  end
  if user.virtual_text ~= nil and type(user.virtual_text) ~= 'boolean' then
    error('eqlens: option virtual_text must be true or false', 2)
  end
  local merged = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), user)
  for _, list in ipairs({ 'cmd', 'filetypes', 'root_markers' }) do
    if user[list] ~= nil then
      merged[list] = vim.deepcopy(user[list])
    end
  end
  M.options = merged
  return merged
end

return M
