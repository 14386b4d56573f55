-- Headless test of the Neovim sample against the real fetchd (scripts/test-nvim.sh):
-- a scripted series of changes through the plugin's commands; after each, the buffer must
-- equal controller/sections + controller/rows fetched on the same connection, rendered the
-- same way. Then several sort keys, and which model store/open gets. Exits 0 when every
-- check passes, 1 otherwise (also on an error or a timeout). The commands come from
-- plugin/fetchd.lua, which scripts/test-nvim.sh sources (-u NONE loads no plugin).
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

local function write_json(path, value)
  local file = assert(io.open(path, 'w'))
  file:write(vim.json.encode(value))
  file:close()
end

local CONTACT = {
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

-- The ids of the rows in the buffer, in order, and #name for each section header.
local function ids_in(view)
  local ids = {}
  for _, line in ipairs(vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)) do
    ids[#ids + 1] = line:match('^  (%S+)') or ('#' .. (line:match('^## (.-) %(%d+%)$') or '?'))
  end
  return table.concat(ids, ' ')
end

-- Several sort keys: rows that tie on the first key are ordered by the second, then the third,
-- in an order the ids (the last tie-break) would not give.
local function sort_keys()
  write_json(dir .. '/ranked.model.json', CONTACT)
  vim.cmd('FetchdOpen ' .. dir .. '/ranked.sqlite Contact initial,-age,name initial')
  local view = fetchd.current()
  views[#views + 1] = view
  wait_for('the sorted view', function() return view.ready or #view.errors > 0 end)
  expect('three sort keys are three sortDescriptors', vim.deep_equal(view.create.request.sortDescriptors, {
    { key = 'initial', ascending = true }, { key = 'age', ascending = false }, { key = 'name', ascending = true },
  }) and view.create.sectionNameKeyPath == 'initial', vim.inspect(view.create))
  vim.cmd('FetchdInsert name=Zed initial=A age=40') -- Contact/1
  vim.cmd('FetchdInsert name=Al initial=A age=30') -- Contact/2
  vim.cmd('FetchdInsert name=Bo initial=B age=50') -- Contact/3
  vim.cmd('FetchdInsert name=Di initial=A age=40') -- Contact/4: before Zed by name, not by id
  vim.cmd('FetchdInsert name=Cy initial=B age=20') -- Contact/5
  check(view, 'inserts under three sort keys')
  local want = '#A Contact/4 Contact/1 Contact/2 #B Contact/3 Contact/5'
  expect('ties on initial go by -age, ties on age by name', ids_in(view) == want, ids_in(view))
  cursor_on(view, 'Contact/2') -- Al, the youngest of A, becomes the oldest
  vim.cmd('FetchdEdit age=45')
  check(view, 'an edit of the second key moves the row')
  expect('Al moved to the top of A', ids_in(view) == '#A Contact/2 Contact/4 Contact/1 #B Contact/3 Contact/5',
    ids_in(view))
  vim.cmd('FetchdSave')
  check(view, 'save of the sorted store')
  view:close()
end

-- Which model store/open gets: none for an existing store without a model file (fetchd
-- uses the one the store records); a report naming the file to create for a new one.
local function models()
  os.remove(dir .. '/ranked.model.json')
  vim.cmd('FetchdOpen ' .. dir .. '/ranked.sqlite Contact -age,name')
  local view = fetchd.current()
  views[#views + 1] = view
  wait_for('the view without a model', function() return view.ready or #view.errors > 0 end)
  expect('an existing store opens without a model file', view.ready and view.model == nil, vim.inspect(view.errors))
  check(view, 'it shows the saved rows')
  expect('sorted by -age, then name', ids_in(view) == '# Contact/3 Contact/2 Contact/4 Contact/1 Contact/5',
    ids_in(view))
  view:close()

  vim.cmd('FetchdOpen ' .. dir .. '/new.sqlite Contact')
  local new = fetchd.current()
  views[#views + 1] = new
  wait_for('the refused open', function() return #new.errors > 0 end)
  local said = notified[1] or ''
  expect('a new store without a model is reported with where to put one', #notified == 1
    and said:find('new.sqlite does not exist yet', 1, true) ~= nil
    and said:find(dir .. '/new.model.json', 1, true) ~= nil, vim.inspect(notified))
  notified = {}
  expect('and nothing is created', vim.fn.filereadable(dir .. '/new.sqlite') == 0)
  new:close()

  -- setup's model comes before <store>.model.json, which comes before none
  write_json(dir .. '/new.model.json', CONTACT)
  expect('<store>.model.json when it exists', fetchd.model_for(dir .. '/new.sqlite') == dir .. '/new.model.json',
    tostring(fetchd.model_for(dir .. '/new.sqlite')))
  fetchd.setup({ model = dir .. '/contacts.model.json' })
  expect("setup's model first", fetchd.model_for(dir .. '/new.sqlite') == dir .. '/contacts.model.json')
  expect("open's model before setup's", fetchd.model_for(dir .. '/new.sqlite', 'm.json') == 'm.json')
  fetchd.config.model = nil
  expect('none for :memory:', fetchd.model_for(':memory:') == nil)
end

local function run()
  write_json(dir .. '/contacts.model.json', CONTACT)
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

  -- A fetchd that dies under a view is reported (SIGTERM to that process only).
  reopened.session:kill()
  wait_for('the report of the lost fetchd', function() return #notified > 0 end)
  -- fetchd closes its store on SIGTERM and exits 128 + 15 (protocol.md §2)
  expect('a lost fetchd is reported', notified[1]:find('fetchd exited (code 143, signal 0)', 1, true),
    vim.inspect(notified))
  notified = {}

  -- Batch requests around the plugin: a cycle of 120 rows inserted into several sections,
  -- then one deleting every other of them; the buffer follows each in one pass.
  local rows = {}
  for i = 1, 120 do
    rows[i] = { string.format('Batch %03d', i), string.char(65 + i % 4), i }
  end
  local ids = fetch(view, 'store/batchInsert',
    { entity = 'Contact', keys = { 'name', 'initial', 'age' }, rows = rows, returnIds = true }).ids
  check(view, 'a batch insert of 120 rows in one cycle')
  local every_other = {}
  for i = 1, #ids, 2 do
    every_other[#every_other + 1] = ids[i]
  end
  fetch(view, 'store/batchDelete', { entity = 'Contact', ids = every_other })
  check(view, 'a batch delete of every other one in one cycle')

  sort_keys()
  models()

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
