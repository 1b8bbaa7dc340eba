-- The per-buffer state reported by the server's `eqlens/status`
-- notification, and its one-line rendering for statuslines.
local M = {}

--- Last `eqlens/status` params per buffer number.
local by_buf = {}

M.spinner_frames = { '⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏' }
-- How often the spinner advances, and so how often statuslines are
-- redrawn while some buffer is being checked.
M.spinner_interval_ms = 100

--- The statusline text for one status (pure: the tests call it directly).
--- `frame` is the spinner character to show while checking.
---   done      "≡ 4 ≢ 1 ? 0"
---   checking  "⠋ ≡ 3 ≢ 1 ? 0 · 1 pending"
---   idle      "eqlens: <note>" (why nothing is checked)
---@param st table|nil eqlens/status params
---@param frame string|nil
---@return string
function M.format(st, frame)
  if type(st) ~= 'table' then
    return ''
  end
  if st.state == 'idle' then
    local note = type(st.note) == 'string' and st.note or 'nothing to check'
    return 'eqlens: ' .. note
  end
  local counts = ('≡ %d ≢ %d ? %d'):format(
    tonumber(st.equivalent) or 0,
    tonumber(st.notEquivalent) or 0,
    tonumber(st.unknown) or 0
  )
  if st.state == 'checking' then
    return ('%s %s · %d pending'):format(frame or M.spinner_frames[1], counts, tonumber(st.pending) or 0)
  end
  return counts
end

-- Lens verdict kinds (virtual_text.kind) → the status count they add to.
local count_of_kind = {
  equivalent = 'equivalent',
  bounded = 'equivalent',
  not_equivalent = 'notEquivalent',
  unknown = 'unknown',
}

--- A "checking" status that lenses of the same document version show to be
--- out of date, brought up to date from them (pure; nil when they agree).
--- Why: the server may deliver an older snapshot's status after a newer
--- one when two checks finish together, and no later status corrects it,
--- which would leave the spinner running. Lenses are requested after a
--- status arrives and answered from the server's current results, so they
--- are never older than it.
---@param st table|nil eqlens/status params
---@param lenses table[] CodeLens list of the same version
---@param kind_of fun(title: string): string verdict kind of a lens title
---@return table|nil
function M.reconcile(st, lenses, kind_of)
  if type(st) ~= 'table' or st.state ~= 'checking' then
    return nil
  end
  local counts = { equivalent = 0, notEquivalent = 0, unknown = 0 }
  local changed = 0
  for _, lens in ipairs(lenses) do
    local title = type(lens.command) == 'table' and lens.command.title or ''
    local kind = kind_of(title)
    if kind == 'checking' then
      return nil
    elseif kind ~= 'unchanged' then
      changed = changed + 1
      local key = count_of_kind[kind]
      counts[key] = counts[key] + 1
    end
  end
  -- Without a lens per changed method (lens = "off") there is no evidence.
  if changed ~= st.changed then
    return nil
  end
  return vim.tbl_extend('force', st, counts, { state = 'done', pending = 0 })
end

--- The spinner frame for a time in nanoseconds (vim.uv.hrtime()).
function M.frame_at(ns)
  local step = math.floor(ns / (M.spinner_interval_ms * 1e6))
  return M.spinner_frames[step % #M.spinner_frames + 1]
end

local uv = vim.uv or vim.loop
local spinner_timer = nil

local function any_checking()
  for buf, st in pairs(by_buf) do
    if vim.api.nvim_buf_is_valid(buf) and st.state == 'checking' then
      return true
    end
  end
  return false
end

-- A repeating timer redraws statuslines while something is being checked,
-- so that the spinner moves; it stops as soon as nothing is.
local function update_spinner()
  if any_checking() then
    if not spinner_timer then
      spinner_timer = uv.new_timer()
      spinner_timer:start(
        M.spinner_interval_ms,
        M.spinner_interval_ms,
        vim.schedule_wrap(function()
          if not any_checking() then
            M.stop_spinner()
          end
          vim.cmd('redrawstatus!')
        end)
      )
    end
  else
    M.stop_spinner()
  end
end

--- Whether the spinner timer runs (while some buffer is being checked).
function M.spinning()
  return spinner_timer ~= nil
end

function M.stop_spinner()
  if spinner_timer then
    spinner_timer:stop()
    spinner_timer:close()
    spinner_timer = nil
  end
end

--- Records a status for a buffer and tells whoever listens:
--- `User EqlensStatus` (data = the params) and a statusline redraw.
function M.set(bufnr, params)
  by_buf[bufnr] = params
  update_spinner()
  vim.api.nvim_exec_autocmds('User', {
    pattern = 'EqlensStatus',
    modeline = false,
    data = { buf = bufnr, status = params },
  })
  vim.cmd('redrawstatus!')
end

function M.forget(bufnr)
  by_buf[bufnr] = nil
  update_spinner()
end

--- The last status params of a buffer, or nil.
function M.get(bufnr)
  return by_buf[bufnr]
end

--- Whether the server's latest results are for the buffer's current text:
--- the status carries the document version it was computed for.
function M.is_current(bufnr)
  local st = by_buf[bufnr]
  return st ~= nil and st.version == vim.lsp.util.buf_versions[bufnr]
end

--- The statusline text of a buffer (default: the current one).
function M.text(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  return M.format(by_buf[bufnr], M.frame_at(uv.hrtime()))
end

return M
