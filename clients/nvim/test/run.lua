-- Headless test of the Neovim sample against the real fetchd (scripts/test-nvim.sh):
-- a scripted series of changes through the plugin's commands; after each, the buffer must
-- equal controller/sections + controller/rows fetched on the same connection, rendered the
-- same way. Exits 0 when every check passes, 1 otherwise (also on an error or a timeout).
local fetchd = require('fetchd')
local Mirror = require('fetchd.mirror')

local bin = assert(os.getenv('FETCHD_BIN'), 'FETCHD_BIN is not set')
local dir = assert(os.getenv('FETCHD_TEST_DIR'), 'FETCHD_TEST_DIR is not set')
local passed, failed = 0, 0
local notified = {} -- error messages the plugin reported with vim.notify
local views = {}

vim.notify = function(message, level)
  if level == nil or level >= vim.log.levels.WARN then
    notified[#notified + 1] = message
  end
end

local function out(text)
  io.stdout:write(text .. '\n')
end

local function wait_for(what, condition)
  if not vim.wait(5000, condition, 5) then
    error('timed out waiting for ' .. what)
  end
end

-- A request sent around the plugin (rpc.request, not Session:request), so the plugin's own
-- list of sent methods shows only what the plugin sent.
local function fetch(view, method, params)
  local done, err, result = false, nil, nil
  view.session.rpc.request(method, params, function(e, r) done, err, result = true, e, r end)
  wait_for(method, function() return done end)
  assert(not err, method .. ': ' .. vim.inspect(err))
  return result
end

local function expected_lines(view)
  local sections = {}
  for i, info in ipairs(fetch(view, 'controller/sections', { controller = 'nvim' }).sections) do
    local rows = fetch(view, 'controller/rows', { controller = 'nvim', section = i - 1 }).objects
    sections[i] = { name = info.name, rows = rows }
  end
  local lines = Mirror.render(sections)
  return #lines == 0 and { '' } or lines
end

local function check(view, name, want_lines)
  wait_for('the plugin\'s requests', function() return view.session.pending == 0 end)
  local got = vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)
  local want = want_lines or expected_lines(view)
  local problems = {}
  if not vim.deep_equal(got, want) then
    problems[#problems + 1] = 'buffer:\n' .. table.concat(got, '\n') .. '\nexpected:\n' .. table.concat(want, '\n')
  end
  if #view.errors > 0 then
    problems[#problems + 1] = 'errors: ' .. table.concat(view.errors, '; ')
  end
  if #notified > 0 then
    problems[#problems + 1] = 'reported: ' .. table.concat(notified, '; ')
  end
  if #problems == 0 then
    passed = passed + 1
    out('ok   ' .. name)
  else
    failed = failed + 1
    out('FAIL ' .. name .. '\n' .. table.concat(problems, '\n'))
  end
  return got
end

local function expect(name, condition, detail)
  if condition then
    passed = passed + 1
    out('ok   ' .. name)
  else
    failed = failed + 1
    out('FAIL ' .. name .. (detail and (': ' .. detail) or ''))
  end
end

local function cursor_on(view, id)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)) do
    if line == '  ' .. id or line:sub(1, #id + 3) == '  ' .. id .. ' ' then
      vim.api.nvim_win_set_cursor(0, { i, 0 })
      return
    end
  end
  error(id .. ' is not in the buffer')
end

local function run()
  local model = {
    entities = { {
      name = 'Contact',
      attributes = {
        name = { type = 'string' },
        initial = { type = 'string' },
        age = { type = 'integer', default = 0 },
      },
      relationships = vim.empty_dict(),
    } },
  }
  local file = assert(io.open(dir .. '/contacts.model.json', 'w'))
  file:write(vim.json.encode(model))
  file:close()
  local store = dir .. '/contacts.sqlite'

  fetchd.setup({ cmd = bin })
  vim.cmd('FetchdOpen ' .. store .. ' Contact name initial')
  local view = fetchd.current()
  views[#views + 1] = view
  wait_for('the view', function() return view.ready or #view.errors > 0 end)
  local opened_with = #view.session.sent
  check(view, 'an empty store shows nothing')

  vim.cmd('FetchdInsert name=Alice initial=A age=30')
  check(view, 'insert into a new section')
  vim.cmd('FetchdInsert name=Bob initial=B age=40')
  vim.cmd('FetchdInsert name=Amy initial=A age=25')
  vim.cmd('FetchdInsert name=Dan initial=D age=20')
  check(view, 'inserts into new and existing sections')

  cursor_on(view, 'Contact/3') -- Amy
  vim.cmd('FetchdEdit name=Dora initial=D')
  check(view, 'move across sections')

  cursor_on(view, 'Contact/2') -- Bob, the last row of B
  vim.cmd('FetchdDelete')
  check(view, 'delete of a section\'s last row')

  vim.cmd('FetchdSave')
  local saved = check(view, 'save')

  cursor_on(view, 'Contact/1') -- Alice, now the last row of A, moves to a new section
  vim.cmd('FetchdEdit initial=E')
  check(view, 'move out of a section it empties into a new one')
  cursor_on(view, 'Contact/4') -- Dan
  vim.cmd('FetchdEdit age=21')
  check(view, 'update in place')
  vim.cmd('FetchdInsert name=Carl initial=C')
  cursor_on(view, 'Contact/3') -- Dora
  vim.cmd('FetchdDelete')
  check(view, 'insert and delete before a rollback')

  vim.cmd('FetchdRollback')
  check(view, 'rollback')
  check(view, 'rollback restores the saved lines', saved)

  vim.api.nvim_win_set_cursor(0, { 1, 0 }) -- a section header
  vim.cmd('FetchdDelete')
  expect('delete on a header is refused', #notified == 1 and notified[1]:find('no row under the cursor', 1, true),
    vim.inspect(notified))
  notified = {}
  check(view, 'a refused delete changes nothing', saved)

  local refetched = {}
  for i = opened_with + 1, #view.session.sent do
    local method = view.session.sent[i]
    if method:match('^controller/') then
      refetched[#refetched + 1] = method
    end
  end
  expect('only notifications changed the buffer (no controller/* request after open)', #refetched == 0,
    table.concat(refetched, ', '))
  -- one cycle per change: 4 inserts, an edit, a delete, (the save: none, nothing changes),
  -- 2 edits, an insert, a delete, the rollback
  expect('the view applied a cycle per change', view.cycles == 11, tostring(view.cycles))

  -- A second fetchd on the saved file: what the first one saved, by name descending, one section.
  vim.cmd('FetchdOpen ' .. store .. ' Contact -name')
  local reopened = fetchd.current()
  views[#views + 1] = reopened
  wait_for('the second view', function() return reopened.ready or #reopened.errors > 0 end)
  local lines = check(reopened, 'a second fetchd shows the saved rows')
  expect('saved rows, by name descending', #lines == 4 and lines[1] == '##  (3)'
    and lines[2]:find('Dora', 1, true) and lines[4]:find('Alice', 1, true), table.concat(lines, '\n'))

  -- A fetchd that dies under a view is reported (killed by its own pid).
  vim.loop.kill(reopened.session.rpc.pid, 'sigterm')
  wait_for('the report of the lost fetchd', function() return #notified > 0 end)
  -- fetchd closes its store on SIGTERM and exits 128 + 15 (protocol.md §2)
  expect('a lost fetchd is reported', notified[1]:find('fetchd exited (code 143, signal 0)', 1, true),
    vim.inspect(notified))
  notified = {}

  for _, v in ipairs({ view }) do -- the other one is gone
    v:close()
    expect('fetchd ' .. v.buf .. ' exits 0 after shutdown and exit', v.session.exited and v.session.exit_code == 0,
      tostring(v.session.exit_code))
  end
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  failed = failed + 1
  out('FAIL ' .. tostring(err))
end
for _, view in ipairs(views) do
  pcall(function() view.session:stop(1000) end)
end
out(string.format('nvim: %d passed, %d failed', passed, failed))
vim.cmd(failed == 0 and 'qall!' or 'cquit 1')
