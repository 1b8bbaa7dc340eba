-- Entry point of the headless Neovim test (run.sh): unit tests, then the
-- end-to-end test against the real server.
local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
package.path = here .. '/?.lua;' .. package.path
local H = require('harness')
local suites = { require('unit') }
if vim.env.EQLENS_UNIT_ONLY ~= '1' then
  table.insert(suites, require('e2e'))
end
H.run(suites, tonumber(vim.env.EQLENS_TEST_DEADLINE_S) or 900)
