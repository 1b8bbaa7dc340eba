-- A tiny test harness for headless Neovim: named steps with timings,
-- assertions that say what was expected, polling with deadlines, and an
-- exit status. Output goes to stdout (print() in headless Neovim does not).
local H = {}

local uv = vim.uv or vim.loop

H.passed, H.failed = 0, 0

function H.out(fmt, ...)
  io.stdout:write(fmt:format(...) .. '\n')
  io.stdout:flush()
end

-- The failure message for a value: inspected, on one line, cut short.
function H.show(v)
  local s = type(v) == 'string' and v or vim.inspect(v)
  if #s > 4000 then
    s = s:sub(1, 4000) .. ' …(cut)'
  end
  return s
end

function H.fail(msg)
  error({ eqlens_test_failure = msg }, 2)
end

function H.ok(cond, msg, ...)
  if not cond then
    H.fail(select('#', ...) > 0 and msg:format(...) or msg)
  end
  return cond
end

function H.eq(actual, expected, what)
  if not vim.deep_equal(actual, expected) then
    H.fail(('%s: expected %s, got %s'):format(what, H.show(expected), H.show(actual)))
  end
end

function H.contains(haystack, needle, what)
  if type(haystack) ~= 'string' or not haystack:find(needle, 1, true) then
    H.fail(('%s: %q not found in:\n%s'):format(what, needle, H.show(haystack)))
  end
end

--- Polls `pred` (every 50 ms) until it returns a truthy value, which is
--- returned. On timeout fails with `what` and, if given, describe()'s view
--- of the state, so that a failure says what was there instead.
function H.wait_for(what, timeout_ms, pred, describe)
  local result
  local ok = vim.wait(timeout_ms, function()
    result = pred()
    return result ~= nil and result ~= false
  end, 50)
  if not ok then
    H.fail(('timed out after %.0f s waiting for %s%s'):format(
      timeout_ms / 1000,
      what,
      describe and ('; last seen: ' .. H.show(describe())) or ''
    ))
  end
  return result
end

--- Runs one named step; a failure is reported and stops the run (later
--- steps build on earlier ones).
function H.step(name, fn)
  local t0 = uv.hrtime()
  local ok, err = xpcall(fn, function(e)
    if type(e) == 'table' and e.eqlens_test_failure then
      return e.eqlens_test_failure
    end
    return debug.traceback(tostring(e), 2)
  end)
  local secs = (uv.hrtime() - t0) / 1e9
  if ok then
    H.passed = H.passed + 1
    H.out('  ok    %6.2fs  %s', secs, name)
  else
    H.failed = H.failed + 1
    H.out('  FAIL  %6.2fs  %s\n%s', secs, name, err)
    error({ eqlens_stop = true })
  end
end

--- Runs the suites (functions taking H) and exits Neovim with 0 when every
--- step passed, 1 otherwise. A deadline stops a hung run.
function H.run(suites, deadline_s)
  local timer = uv.new_timer()
  timer:start(deadline_s * 1000, 0, function()
    io.stdout:write(('FAIL: the whole run took longer than %d s\n'):format(deadline_s))
    io.stdout:flush()
    os.exit(3)
  end)
  local t0 = uv.hrtime()
  local ok, err = pcall(function()
    for _, suite in ipairs(suites) do
      H.out('%s', suite.name)
      suite.run(H)
    end
  end)
  if not ok and not (type(err) == 'table' and err.eqlens_stop) then
    H.failed = H.failed + 1
    H.out('FAIL (outside a step): %s', H.show(err))
  end
  timer:stop()
  H.out('%.1f s in all', (uv.hrtime() - t0) / 1e9)
  H.out('nvim: %d passed, %d failed', H.passed, H.failed)
  vim.cmd(H.failed == 0 and 'qall!' or 'cquit! 1')
end

return H
