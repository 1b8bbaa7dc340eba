-- Each changed method's verdict as virtual text at the end of its first
-- line, taken from the server's code lenses (the server decides the
-- words; this module only places and colours them).
local M = {}

M.namespace = vim.api.nvim_create_namespace('eqlens.verdicts')

--- Highlight group per verdict kind, and what each links to by default
--- (users override with :highlight or nvim_set_hl; ours are `default`).
M.groups = {
  equivalent = { name = 'EqlensEquivalent', link = 'DiagnosticOk' },
  bounded = { name = 'EqlensBounded', link = 'DiagnosticHint' },
  not_equivalent = { name = 'EqlensNotEquivalent', link = 'DiagnosticWarn' },
  unknown = { name = 'EqlensUnknown', link = 'DiagnosticInfo' },
  checking = { name = 'EqlensChecking', link = 'Comment' },
  unchanged = { name = 'EqlensUnchanged', link = 'Comment' },
}

function M.define_highlights()
  for _, g in pairs(M.groups) do
    vim.api.nvim_set_hl(0, g.name, { link = g.link, default = true })
  end
end

--- The verdict kind of a lens title (docs/server.md, "Code lens").
--- Titles this plugin does not know count as unknown rather than failing.
---@param title string
---@return string kind a key of M.groups
function M.kind(title)
  if vim.startswith(title, '≡ equivalent up to') then
    return 'bounded'
  elseif vim.startswith(title, '≡') then
    return 'equivalent'
  elseif vim.startswith(title, '≢') then
    return 'not_equivalent'
  elseif vim.startswith(title, '…') then
    return 'checking'
  elseif title == 'unchanged' then
    return 'unchanged'
  end
  return 'unknown'
end

--- Lenses → one mark per line (pure: the tests call it directly).
--- Several lenses on one line are joined with " | " and coloured by the
--- first. Lenses without a command have no title and are skipped.
---@param lenses table[]|nil LSP CodeLens list
---@return {line: integer, text: string, hl: string}[] sorted by line (0-based)
function M.marks(lenses)
  local by_line, lines = {}, {}
  -- JSON null arrives as vim.NIL (userdata): only tables are looked into.
  local function field(t, k)
    return type(t) == 'table' and t[k] or nil
  end
  for _, lens in ipairs(type(lenses) == 'table' and lenses or {}) do
    local title = field(field(lens, 'command'), 'title')
    local line = field(field(field(lens, 'range'), 'start'), 'line')
    if type(title) == 'string' and title ~= '' and type(line) == 'number' then
      local mark = by_line[line]
      if mark then
        mark.text = mark.text .. ' | ' .. title
      else
        by_line[line] = { line = line, text = title, hl = M.groups[M.kind(title)].name }
        table.insert(lines, line)
      end
    end
  end
  table.sort(lines)
  local out = {}
  for _, l in ipairs(lines) do
    table.insert(out, by_line[l])
  end
  return out
end

--- Replaces the buffer's verdict marks with those of `lenses`.
function M.render(bufnr, lenses)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  vim.api.nvim_buf_clear_namespace(bufnr, M.namespace, 0, -1)
  local line_count = vim.api.nvim_buf_line_count(bufnr)
  for _, mark in ipairs(M.marks(lenses)) do
    -- A lens past the end belongs to text that has since shrunk; the next
    -- refresh (after the server's status for the new text) places it.
    if mark.line < line_count then
      vim.api.nvim_buf_set_extmark(bufnr, M.namespace, mark.line, 0, {
        virt_text = { { mark.text, mark.hl } },
        virt_text_pos = 'eol',
        hl_mode = 'combine',
      })
    end
  end
end

function M.clear(bufnr)
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.api.nvim_buf_clear_namespace(bufnr, M.namespace, 0, -1)
  end
end

return M
