-- Headless test of how the plugin finds and checks fetchd (scripts/test-nvim.sh): setup({})
-- starts `fetchd` from PATH (a temp dir holding a symlink to the real binary comes first;
-- neither FETCHD nor FETCHD_BIN is set), and an initialize answering another protocol version
-- (test/fake_fetchd.py) is reported and ends that fetchd. Exits 0 when every check passes.
-- The commands come from plugin/fetchd.lua, which scripts/test-nvim.sh sources.
local fetchd = require('fetchd')
local uv = vim.uv or vim.loop -- vim.loop is deprecated from 0.10 on, vim.uv is missing before

local dir = assert(os.getenv('FETCHD_TEST_DIR'), 'FETCHD_TEST_DIR is not set')
local path_dir = assert(os.getenv('FETCHD_PATH_DIR'), 'FETCHD_PATH_DIR is not set') -- holds the fetchd symlink
local real = assert(os.getenv('FETCHD_EXPECT_EXE'), 'FETCHD_EXPECT_EXE is not set') -- what it points at
local fake = assert(os.getenv('FETCHD_FAKE'), 'FETCHD_FAKE is not set')
local passed, failed = 0, 0
local notified = {}
local views = {}

vim.notify = function(message, level)
  if level == nil or level >= vim.log.levels.WARN then
    notified[#notified + 1] = message
  end
end

local function out(text)
  io.stdout:write(text .. '\n')
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

local function wait_for(what, condition)
  if not vim.wait(5000, condition, 5) then
    error('timed out waiting for ' .. what)
  end
end

local function read_lines(file)
  local lines = {}
  local handle = io.open(file, 'r')
  if handle then
    for line in handle:lines() do
      lines[#lines + 1] = line
    end
    handle:close()
  end
  return lines
end

local function run()
  local model_path = dir .. '/contacts.model.json'
  local file = assert(io.open(model_path, 'w'))
  file:write(vim.json.encode({ entities = { { name = 'Contact', attributes = {
    name = { type = 'string' }, initial = { type = 'string' } } } } }))
  file:close()

  -- 1. No configuration: fetchd from PATH.
  expect('neither FETCHD nor FETCHD_BIN is set', os.getenv('FETCHD') == nil and os.getenv('FETCHD_BIN') == nil)
  fetchd.setup({})
  expect('setup({}) starts `fetchd`', fetchd.command() == 'fetchd', fetchd.command())
  expect('PATH finds the symlink first', vim.fn.exepath('fetchd') == path_dir .. '/fetchd', vim.fn.exepath('fetchd'))
  local view = fetchd.open({ store = ':memory:', entity = 'Contact', sort = 'name', model = model_path })
  views[#views + 1] = view
  wait_for('the view', function() return view.ready or #view.errors > 0 end)
  expect('the view opens', view.ready and #view.errors == 0 and #notified == 0,
    vim.inspect({ errors = view.errors, notified = notified }))
  if view.session.pid then
    local exe = uv.fs_realpath('/proc/' .. view.session.pid .. '/exe')
    expect('the process runs the binary the symlink points at', exe == uv.fs_realpath(real), tostring(exe))
  else
    out('skip which binary runs (this Neovim does not give the process id)')
  end
  vim.cmd('FetchdInsert name=Ana initial=A')
  wait_for('the inserted row', function() return view.cycles == 1 end)
  local lines = vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)
  expect('an insert shows', #lines == 2 and lines[2]:find('Ana', 1, true) ~= nil, table.concat(lines, '\n'))
  view:close()
  expect('fetchd exits 0 after shutdown and exit', view.session.exited and view.session.exit_code == 0,
    tostring(view.session.exit_code))

  -- 2. $FETCHD, then setup's cmd, come before PATH.
  vim.env.FETCHD = '/opt/fetchd/bin/fetchd'
  expect('$FETCHD names the command', fetchd.command() == '/opt/fetchd/bin/fetchd', fetchd.command())
  fetchd.setup({ cmd = fake })
  expect('setup\'s cmd comes first', fetchd.command() == fake, fetchd.command())
  vim.fn.setenv('FETCHD', vim.NIL)

  -- 3. The protocol version of initialize.
  expect('the same protocol version passes', fetchd.check_protocol({ protocolVersion = 1 }, 'fetchd') == nil)
  local two = fetchd.check_protocol({ serverInfo = { name = 'fetchd', version = '0.2.0' }, protocolVersion = 2 },
    '/usr/local/bin/fetchd')
  expect('another names both versions', two ==
    'fetchd 0.2.0 at /usr/local/bin/fetchd speaks protocol version 2; this plugin (fetchd.nvim) speaks protocol version 1. '
    .. 'Use a fetchd and a fetchd.nvim of the same release.',
    tostring(two))
  local none = fetchd.check_protocol({ serverInfo = { name = 'fetchd' } }, 'fetchd')
  expect('none is a mismatch too', none ~= nil and none:find('does not say which protocol version', 1, true) ~= nil,
    tostring(none))

  local python = vim.fn.executable('python3') == 1
  if not python then
    out('skip a fetchd of another protocol version (python3, which runs test/fake_fetchd.py, is missing)')
  else
    local log = dir .. '/fake.log'
    fetchd.setup({ cmd = fake, args = { '--protocol', '2', '--log', log } })
    local other = fetchd.open({ store = ':memory:', entity = 'Contact', model = model_path })
    views[#views + 1] = other
    wait_for('the mismatch', function() return #other.errors > 0 end)
    local want = 'fetchd: fetchd 0.0.0-fake at ' .. fake
      .. ' speaks protocol version 2; this plugin (fetchd.nvim) speaks protocol version 1. '
      .. 'Use a fetchd and a fetchd.nvim of the same release.'
    expect('a fetchd of another protocol version is reported', #notified == 1 and notified[1] == want,
      vim.inspect(notified))
    notified = {}
    wait_for('the fake to exit', function() return other.session.exited end)
    expect('it is asked to exit, and nothing else is sent', other.session.exit_code == 0
      and vim.deep_equal(read_lines(log), { 'initialize', 'shutdown', 'exit' }), vim.inspect(read_lines(log)))
    expect('the buffer never got ready', not other.ready)
    expect('its end is not reported as a lost fetchd', #notified == 0, vim.inspect(notified))
  end

  -- 4. Nothing to start: a clear report, no buffer left behind.
  fetchd.setup({ cmd = 'fetchd-not-installed', args = {} })
  local buffers = #vim.api.nvim_list_bufs()
  vim.cmd('FetchdOpen ' .. dir .. '/contacts.sqlite Contact')
  expect('a missing fetchd is reported', #notified == 1
    and notified[1]:find("no fetchd to start: 'fetchd-not-installed' is not an executable on PATH", 1, true) ~= nil,
    vim.inspect(notified))
  expect('and leaves no buffer', #vim.api.nvim_list_bufs() == buffers)
  notified = {}
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  failed = failed + 1
  out('FAIL ' .. tostring(err))
end
for _, view in ipairs(views) do
  pcall(function() view.session:stop(1000) end)
end
out(string.format('nvim (PATH): %d passed, %d failed', passed, failed))
vim.cmd(failed == 0 and 'qall!' or 'cquit 1')
