-- Headless test of the plugin as a user's Neovim loads it (scripts/test-nvim.sh starts nvim
-- with -u NORC: no init file, but plugins load, so plugin/fetchd.lua is sourced by Neovim's
-- startup, not by this file): the commands exist before setup() and before any fetchd module
-- is loaded; the loading guard; a view opened without setup(); setup's checks; the :FetchdOpen
-- arguments and completion; the help file's tags; :checkhealth fetchd. Exits 0 when every
-- check passes.
local bin = assert(os.getenv('FETCHD_BIN'), 'FETCHD_BIN is not set')
local dir = assert(os.getenv('FETCHD_TEST_DIR'), 'FETCHD_TEST_DIR is not set')
local root = assert(os.getenv('FETCHD_ROOT'), 'FETCHD_ROOT is not set') -- clients/nvim
local fake = assert(os.getenv('FETCHD_FAKE'), 'FETCHD_FAKE is not set')
local passed, failed = 0, 0
local notified = {}
local views = {}
-- before anything here requires it
local loaded_before = package.loaded['fetchd'] ~= nil

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
    out('FAIL ' .. name .. (detail and (': ' .. tostring(detail)) or ''))
  end
end

local function wait_for(what, condition)
  if not vim.wait(5000, condition, 5) then
    error('timed out waiting for ' .. what)
  end
end

local function write_json(path, value)
  local file = assert(io.open(path, 'w'))
  file:write(vim.json.encode(value))
  file:close()
end

local COMMANDS = { 'FetchdOpen', 'FetchdInsert', 'FetchdEdit', 'FetchdDelete', 'FetchdSave', 'FetchdRollback' }

local function loading()
  local scripts = vim.fn.execute('scriptnames')
  expect("Neovim's startup sourced this checkout's plugin/fetchd.lua",
    scripts:find(root .. '/plugin/fetchd.lua', 1, true) ~= nil, scripts)
  expect('g:loaded_fetchd is set', vim.g.loaded_fetchd == 1, vim.inspect(vim.g.loaded_fetchd))
  local missing = {}
  for _, name in ipairs(COMMANDS) do
    if vim.fn.exists(':' .. name) ~= 2 then
      missing[#missing + 1] = name
    end
  end
  expect('every command exists before setup()', #missing == 0, table.concat(missing, ', '))
  expect('and no fetchd module is loaded yet', not loaded_before and package.loaded['fetchd'] == nil)
  local first = vim.api.nvim_get_runtime_file('lua/fetchd/init.lua', false)[1]
  expect("require('fetchd') is this checkout's", first == root .. '/lua/fetchd/init.lua', first)

  -- the guard: a second source is a no-op; without the flag it defines the commands again
  vim.api.nvim_del_user_command('FetchdSave')
  vim.cmd('runtime plugin/fetchd.lua')
  expect('sourced again, the plugin does nothing', vim.fn.exists(':FetchdSave') == 0)
  vim.g.loaded_fetchd = nil
  vim.cmd('runtime plugin/fetchd.lua')
  expect('without g:loaded_fetchd it defines the commands again', vim.fn.exists(':FetchdSave') == 2
    and vim.g.loaded_fetchd == 1)
end

local MODEL = { entities = { { name = 'Contact', attributes = {
  name = { type = 'string' }, initial = { type = 'string', optional = true },
  age = { type = 'integer', default = 0 } } } } }

-- No setup() at all: $FETCHD and <store>.model.json.
local function without_setup()
  vim.env.FETCHD = bin
  write_json(dir .. '/first.model.json', MODEL)
  vim.cmd('FetchdOpen ' .. dir .. '/first.sqlite Contact name')
  local fetchd = require('fetchd')
  local view = fetchd.current()
  expect(':FetchdOpen opens a view without setup()', view ~= nil, vim.inspect(notified))
  if not view then
    return
  end
  views[#views + 1] = view
  wait_for('the view', function() return view.ready or #view.errors > 0 end)
  vim.cmd('FetchdInsert name=Ann age=30')
  wait_for('the insert', function() return view.cycles == 1 or #view.errors > 0 end)
  local lines = vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)
  expect('and shows an insert', #lines == 2 and lines[2] == '  Contact/1 age=30 name=Ann'
    and #notified == 0, table.concat(lines, '\n') .. vim.inspect(notified))
  expect('the buffer is a fetchd buffer', vim.bo[view.buf].filetype == 'fetchd'
    and vim.bo[view.buf].buftype == 'nofile' and not vim.bo[view.buf].modifiable)

  -- completion of key= for the view's entity: the model's attributes
  expect(':FetchdInsert completes key=', vim.deep_equal(vim.fn.getcompletion('FetchdInsert a', 'cmdline'),
    { 'age=' }), vim.inspect(vim.fn.getcompletion('FetchdInsert a', 'cmdline')))
  expect(':FetchdEdit completes key=', vim.deep_equal(vim.fn.getcompletion('FetchdEdit name=Al i', 'cmdline'),
    { 'initial=' }), vim.inspect(vim.fn.getcompletion('FetchdEdit name=Al i', 'cmdline')))
  view:close()
  vim.fn.setenv('FETCHD', vim.NIL)
end

local function setup_checks()
  local fetchd = require('fetchd')
  expect('setup() was never called: the defaults', fetchd.config.cmd == nil and fetchd.config.context == 'main')
  fetchd.setup({ cmd = bin })
  local cmd, source = fetchd.command()
  expect('setup() after the plugin loaded sets cmd', cmd == bin and source == 'setup', cmd)
  fetchd.setup({ args = { '--log-level', 'debug' } })
  expect('a later setup() keeps the other options', fetchd.config.cmd == bin
    and vim.deep_equal(fetchd.arguments(), { '--log-level', 'debug' }))
  fetchd.setup({ cmd = { bin, '--watch', 'off' } })
  expect('cmd as a list: the program, then its arguments before args', fetchd.command() == bin
    and vim.deep_equal(fetchd.arguments(), { '--watch', 'off', '--log-level', 'debug' }),
    vim.inspect(fetchd.arguments()))
  local ok, err = pcall(fetchd.setup, { cmd = 42 })
  expect('a cmd of the wrong type is an error', not ok and tostring(err):find('cmd should be a string or table', 1, true),
    tostring(err))
  fetchd.setup({ modle = 'x.json' })
  expect('an unknown option is reported', #notified == 1 and notified[1]:find("unknown option 'modle'", 1, true),
    vim.inspect(notified))
  notified = {}
  fetchd.config.cmd, fetchd.config.args = nil, {}
end

local function arguments()
  local fetchd = require('fetchd')
  local function parsed(args)
    local ok, result = pcall(fetchd.parse_open_args, args)
    return ok and result or ('error: ' .. tostring(result))
  end
  local function same(args, want)
    local got = parsed(args)
    expect(':FetchdOpen ' .. table.concat(args, ' '), vim.deep_equal(got, want), vim.inspect(got))
  end
  local function refused(args, text)
    local got = parsed(args)
    expect(':FetchdOpen ' .. table.concat(args, ' ') .. ' is refused', type(got) == 'string'
      and got:find(text, 1, true) ~= nil, vim.inspect(got))
  end
  same({ 's.db', 'Contact' }, { store = 's.db', entity = 'Contact' })
  same({ 's.db', 'Contact', '-age' }, { store = 's.db', entity = 'Contact', sort = '-age' })
  same({ 's.db', 'Contact', 'name,-age', 'initial' },
    { store = 's.db', entity = 'Contact', sort = 'name,-age', section = 'initial' })
  same({ 's.db', 'Contact', 'section=initial' }, { store = 's.db', entity = 'Contact', section = 'initial' })
  same({ 's.db', 'Contact', 'sort=name,-age', 'section=initial' },
    { store = 's.db', entity = 'Contact', sort = 'name,-age', section = 'initial' })
  refused({ 's.db' }, 'usage: FetchdOpen {store} {entity}')
  refused({ 's.db', 'Contact', 'name', '-age', 'initial' }, 'usage: FetchdOpen')
  refused({ 's.db', 'Contact', 'name', 'sort=age' }, 'sort is given twice')
  expect('name,-age,+initial: three descriptors', vim.deep_equal(fetchd.parse_sort('name,-age,+initial'), {
    { key = 'name', ascending = true }, { key = 'age', ascending = false }, { key = 'initial', ascending = true },
  }))
  expect('a key path sorts', vim.deep_equal(fetchd.parse_sort({ '-group.title' }),
    { { key = 'group.title', ascending = false } }))
  local ok, err = pcall(fetchd.parse_sort, 'name,,age')
  expect('an empty sort key is refused', not ok and tostring(err):find("bad sort key ''", 1, true), tostring(err))
  notified = {}
  vim.cmd('FetchdOpen s.db Contact name -age initial')
  expect('a usage error is reported, not raised', #notified == 1 and notified[1]:find('usage:', 1, true),
    vim.inspect(notified))
  notified = {}
end

local function completion()
  local function completes(line, want)
    local got = vim.fn.getcompletion(line, 'cmdline')
    local missing = {}
    for _, item in ipairs(want) do
      if not vim.tbl_contains(got, item) then
        missing[#missing + 1] = item
      end
    end
    expect('completes ' .. line:gsub(vim.pesc(dir), '$DIR'), #missing == 0, vim.inspect(got))
  end
  local store = dir .. '/first.sqlite'
  completes('FetchdOpen ' .. dir .. '/fir', { store, dir .. '/first.model.json' })
  completes('FetchdOpen :me', { ':memory:' })
  completes('FetchdOpen ' .. store .. ' Co', { 'Contact' })
  completes('FetchdOpen ' .. store .. ' Contact ', { 'age', 'initial', 'name' })
  completes('FetchdOpen ' .. store .. ' Contact name,-a', { 'name,-age' })
  completes('FetchdOpen ' .. store .. ' Contact sort=-n', { 'sort=-name' })
  completes('FetchdOpen ' .. store .. ' Contact name i', { 'initial' })
  completes('FetchdOpen ' .. store .. ' Contact section=in', { 'section=initial' })
end

-- doc/fetchd.txt through :helptags into a temp dir (no tags file left in the checkout).
local function help()
  local helproot = dir .. '/help'
  vim.fn.mkdir(helproot .. '/doc', 'p')
  local text = table.concat(vim.fn.readfile(root .. '/doc/fetchd.txt'), '\n')
  vim.fn.writefile(vim.fn.readfile(root .. '/doc/fetchd.txt'), helproot .. '/doc/fetchd.txt')
  local tags_before = vim.fn.getftime(root .. '/doc/tags') -- -1: none (doc/tags is in .gitignore)
  local ok, err = pcall(vim.cmd, 'helptags ' .. vim.fn.fnameescape(helproot .. '/doc'))
  expect(':helptags accepts doc/fetchd.txt (no duplicate tag)', ok and vim.fn.filereadable(helproot .. '/doc/tags') == 1,
    tostring(err))
  expect('and leaves the checkout as it was', vim.fn.getftime(root .. '/doc/tags') == tags_before)
  vim.opt.runtimepath:prepend(helproot)

  local function opens(tag)
    local shown, problem = pcall(vim.cmd, 'help ' .. tag)
    local name = shown and vim.api.nvim_buf_get_name(0) or ''
    vim.cmd('helpclose')
    return shown and name:sub(-#'/fetchd.txt') == '/fetchd.txt', shown and name or problem
  end
  local tags = { 'fetchd', 'fetchd.txt', 'fetchd-setup', 'fetchd-model', 'fetchd-sort', 'fetchd-buffer',
    'fetchd-health', 'fetchd-troubleshooting', 'g:loaded_fetchd' }
  for _, name in ipairs(COMMANDS) do
    tags[#tags + 1] = ':' .. name
  end
  for _, tag in ipairs(tags) do
    local shown, where = opens(tag)
    expect(':help ' .. tag .. ' opens fetchd.txt', shown, where)
  end
  -- every |link| goes somewhere (a tag of this file or of Neovim's help)
  local broken = {}
  for link in text:gmatch('|([^|%s]+)|') do
    if not pcall(vim.cmd, 'help ' .. link) then
      broken[#broken + 1] = link
    end
    pcall(vim.cmd, 'helpclose')
  end
  expect('every |link| in fetchd.txt resolves', #broken == 0, table.concat(broken, ', '))
end

-- :checkhealth fetchd's report as lines (each run opens it in a new tab).
local function checkhealth()
  vim.cmd('silent checkhealth fetchd') -- silent: no "Running healthchecks..." on the terminal
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd('tabclose')
  return lines
end

-- The first line holding every string of `parts`, in order (0.7 writes "- OK: msg", 0.10 "- ✅ OK msg").
local function line_with(lines, parts)
  for _, line in ipairs(lines) do
    local at = 1
    for _, part in ipairs(parts) do
      local found = line:find(part, at, true)
      if not found then
        at = nil
        break
      end
      at = found + #part
    end
    if at then
      return line
    end
  end
  return nil
end

local function health()
  local fetchd = require('fetchd')
  fetchd.setup({ cmd = bin })
  local report = checkhealth()
  local text = table.concat(report, '\n')
  expect('checkhealth: OK, the binary and where from', line_with(report, { 'OK', 'fetchd found: ' .. bin,
    "(from setup's cmd)" }), text)
  expect('checkhealth: OK, its version', line_with(report, { 'OK', 'fetchd --version: ' }), text)
  expect('checkhealth: OK, the protocol version', line_with(report, { 'OK',
    'protocol version ' .. fetchd.PROTOCOL_VERSION .. ', the one this plugin speaks' }), text)
  expect('checkhealth: OK, Neovim', line_with(report, { 'OK', 'Neovim ' }), text)
  expect('checkhealth: no ERROR', not line_with(report, { 'ERROR' }), text)

  fetchd.config.cmd = nil
  vim.env.FETCHD = bin
  report = checkhealth()
  expect('checkhealth: from $FETCHD', line_with(report, { 'OK', 'fetchd found: ' .. bin, '(from $FETCHD)' }),
    table.concat(report, '\n'))
  vim.fn.setenv('FETCHD', vim.NIL)

  fetchd.setup({ cmd = dir .. '/missing/fetchd' })
  report = checkhealth()
  text = table.concat(report, '\n')
  expect('checkhealth: ERROR for a missing binary', line_with(report, { 'ERROR',
    "no fetchd: '" .. dir .. "/missing/fetchd' (from setup's cmd) is not an executable file" }), text)
  expect('with advice', line_with(report, { 'ADVICE' }) or line_with(report, { "setup's cmd comes before" }), text)
  expect('and no protocol line', not line_with(report, { 'protocol version' }), text)

  if vim.fn.executable('python3') == 1 then
    fetchd.setup({ cmd = fake, args = { '--protocol', '2' } })
    report = checkhealth()
    expect('checkhealth: ERROR for another protocol version', line_with(report, { 'ERROR',
      'speaks protocol version 2; this plugin (fetchd.nvim) speaks protocol version 1' }),
      table.concat(report, '\n'))
  else
    out('skip checkhealth with another protocol version (python3, which runs test/fake_fetchd.py, is missing)')
  end
  fetchd.config.cmd, fetchd.config.args = nil, {}
end

local function run()
  loading()
  without_setup()
  setup_checks()
  arguments()
  completion()
  help()
  health()
  expect('nothing else was reported', #notified == 0, vim.inspect(notified))
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  failed = failed + 1
  out('FAIL ' .. tostring(err))
end
for _, view in ipairs(views) do
  pcall(function() view.session:stop(1000) end)
end
out(string.format('nvim (plugin): %d passed, %d failed', passed, failed))
vim.cmd(failed == 0 and 'qall!' or 'cquit 1')
