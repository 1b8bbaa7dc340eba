-- :checkhealth eqlens — can this Neovim run eqlens, and is it running?
local M = {}

local health = vim.health

local function check_neovim()
  local v = vim.version()
  local text = ('Neovim %d.%d.%d'):format(v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.10') == 1 then
    health.ok(text)
  else
    health.error(text .. ': eqlens needs 0.10 or newer (vim.lsp.start, vim.fs.root)')
  end
end

-- Runs a command and returns (ok, first output line or error text).
local function run(cmd)
  local ok, proc = pcall(vim.system, cmd, { text = true })
  if not ok then
    return false, tostring(proc)
  end
  local result = proc:wait(10000)
  local out = vim.trim((result.stdout or '') .. (result.stderr or ''))
  return result.code == 0, vim.split(out, '\n')[1] or ''
end

local function check_server(cmd)
  local exe = vim.fn.exepath(cmd[1])
  if exe == '' then
    health.error(("server command '%s' not found"):format(cmd[1]), {
      'Install eqlens (cargo build --release; put target/release on PATH)',
      "or give its path: require('eqlens').setup{ cmd = { '/path/to/eqlens', 'serve' } }",
    })
    return
  end
  local ok, line = run({ exe, '--version' })
  if ok and line:match('^eqlens ') then
    health.ok(('server: %s (%s)'):format(line, exe))
  else
    health.error(('server %s is not runnable: `%s --version` gave: %s'):format(exe, exe, line))
  end
end

local function check_git()
  if vim.fn.executable('git') == 0 then
    health.warn('git not found: the default `git` baseline needs it', {
      "Install git, or use settings = { baseline = 'pinned' } or 'paired'",
    })
    return
  end
  local ok, line = run({ 'git', '--version' })
  if ok then
    health.ok(line)
  else
    health.warn('git is on PATH but `git --version` failed: ' .. line)
  end
end

local function check_clients()
  local clients = vim.lsp.get_clients({ name = require('eqlens.client').name })
  if #clients == 0 then
    health.info('no eqlens server running (open a Java or C file)')
    return
  end
  for _, c in ipairs(clients) do
    local names = {}
    for bufnr in pairs(c.attached_buffers or {}) do
      if vim.api.nvim_buf_is_valid(bufnr) then
        table.insert(names, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':~:.'))
      end
    end
    table.sort(names)
    local server = c.server_info and c.server_info.version and (' eqlens ' .. c.server_info.version) or ''
    local root = c.root_dir or c.config.root_dir or '?'
    if #names > 0 then
      health.ok(('client %d%s attached (root %s): %s'):format(c.id, server, root, table.concat(names, ', ')))
    else
      health.warn(('client %d%s running (root %s) with no buffer attached'):format(c.id, server, root))
    end
  end
end

function M.check()
  local config = require('eqlens.config')
  health.start('eqlens: requirements')
  check_neovim()
  check_server(config.options.cmd)
  check_git()
  health.start('eqlens: setup')
  if vim.fn.exists(':EqlensCheck') == 2 then
    health.ok(('setup done: filetypes %s, settings %s'):format(
      table.concat(config.options.filetypes, ', '),
      vim.inspect(config.options.settings, { newline = ' ', indent = '' })
    ))
  else
    health.warn("setup not called: add require('eqlens').setup{} to your configuration")
  end
  check_clients()
end

return M
