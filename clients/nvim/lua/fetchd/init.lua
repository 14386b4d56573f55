-- fetchd in Neovim: a controller shown in a buffer (a header per section, a line per row),
-- kept live by the controller notifications, with commands to change, save and roll back.
-- plugin/fetchd.lua defines the commands; setup() is only configuration (:help fetchd).
--   require('fetchd').setup({ model = 'contacts.model.json' })  -- optional
--   :FetchdOpen contacts.sqlite Contact name,-age initial
local Session = require('fetchd.session')
local Mirror = require('fetchd.mirror')

local DEFAULTS = {
  cmd = nil, -- nil: $FETCHD when set, else `fetchd` found on PATH
  args = {}, -- fetchd's arguments, e.g. { '--log-level', 'debug' }
  model = nil, -- a model file (or the model as a table) sent with every store/open
  context = 'main', -- the context the commands change
}

local M = {
  config = vim.deepcopy(DEFAULTS),
  views = {}, -- by buffer number
  -- the protocolVersion of fetchd's initialize result this plugin is written for (protocol.md §2)
  PROTOCOL_VERSION = 1,
}

local CONTROLLER = 'nvim'

local function report(message, level)
  vim.notify('fetchd: ' .. message, level or vim.log.levels.ERROR)
end

-- error() without the file:line prefix assert() gives: the message is for the user.
local function need(value, message)
  if not value then
    error(message, 0)
  end
  return value
end

-- An error answer as text; an invalidParams answer names the parameter, since its message
-- alone ("Invalid params") does not say what to fix.
local function error_text(err)
  if type(err) ~= 'table' or not err.message then
    return tostring(err)
  end
  local data = type(err.data) == 'table' and err.data or {}
  if type(data.param) == 'string' and data.expected ~= nil then
    return string.format('%s: %s should be %s, got %s', err.message, data.param, tostring(data.expected),
      tostring(data.got))
  end
  return err.message
end

-- The fetchd executable to start: setup's cmd, else $FETCHD, else `fetchd` on PATH; and
-- which of the three it is ('setup', '$FETCHD' or 'PATH', for :checkhealth).
function M.command()
  local cmd = M.config.cmd
  if type(cmd) == 'table' then
    cmd = cmd[1] -- { 'fetchd', '--log-level', 'debug' }, as nvim-lspconfig writes a cmd
  end
  if cmd ~= nil and cmd ~= '' then
    return cmd, 'setup'
  end
  cmd = os.getenv('FETCHD')
  if cmd ~= nil and cmd ~= '' then
    return cmd, '$FETCHD'
  end
  return 'fetchd', 'PATH'
end

-- fetchd's arguments: the rest of a cmd list, then setup's args.
function M.arguments()
  local args = {}
  if type(M.config.cmd) == 'table' then
    args = vim.list_slice(M.config.cmd, 2)
  end
  return vim.list_extend(args, M.config.args or {})
end

-- nil when fetchd's initialize result speaks our protocol version, else what to report.
function M.check_protocol(result, cmd)
  local served = type(result) == 'table' and result.protocolVersion or nil
  if served == M.PROTOCOL_VERSION then
    return nil
  end
  local info = type(result) == 'table' and type(result.serverInfo) == 'table' and result.serverInfo or {}
  local server = 'fetchd' .. (type(info.version) == 'string' and (' ' .. info.version) or '') .. ' at ' .. cmd
  local ours = string.format('this plugin (fetchd.nvim) speaks protocol version %d. '
    .. 'Use a fetchd and a fetchd.nvim of the same release.', M.PROTOCOL_VERSION)
  local said = 'does not say which protocol version it speaks (its initialize result has no protocolVersion)'
  if type(served) == 'number' then
    said = 'speaks protocol version ' .. tostring(served)
  end
  return string.format('%s %s; %s', server, said, ours)
end

local View = {}
View.__index = View

function View:redraw()
  local lines, positions = Mirror.render(self.mirror.sections)
  self.positions = positions
  if not vim.api.nvim_buf_is_valid(self.buf) then
    return
  end
  vim.bo[self.buf].modifiable = true
  vim.api.nvim_buf_set_lines(self.buf, 0, -1, false, lines)
  vim.bo[self.buf].modifiable = false
end

-- The controller notifications (protocol.md §10): collect a cycle, apply it at its end.
function View:on_notification(method, params)
  if type(params) ~= 'table' or params.controller ~= CONTROLLER then
    return
  end
  local ok, err = pcall(function()
    if method == 'controller/willChangeContent' then
      self.mirror:begin_batch()
    elseif method == 'controller/didChangeSection' then
      self.mirror:add_section_change(params)
    elseif method == 'controller/didChangeObject' then
      self.mirror:add_object_change(params)
    elseif method == 'controller/didChangeContent' then
      self.mirror:apply_batch()
      self.cycles = self.cycles + 1
      self:redraw()
    end
  end)
  if not ok then
    self.errors[#self.errors + 1] = tostring(err)
    report('the buffer no longer matches the controller: ' .. tostring(err))
  end
end

-- Sends a change; reports an error answer.
function View:change(method, params, done)
  params.context = M.config.context
  self.session:request(method, params, function(err, result)
    if err then
      self.errors[#self.errors + 1] = error_text(err)
      report(method .. ': ' .. error_text(err))
    end
    if done then
      done(err, result)
    end
  end)
end

-- The object shown on the cursor's line, or nil (a header, an empty buffer).
function View:object_at_cursor()
  local line = vim.api.nvim_win_get_cursor(0)[1]
  local position = self.positions and self.positions[line]
  if not position or not position.row then
    return nil
  end
  return self.mirror.sections[position.section].rows[position.row]
end

function View:close()
  M.views[self.buf] = nil
  self.session:stop()
end

-- key=value arguments: a value that reads as JSON (30, true, null, "x", ["Tag/1"]) is that
-- value, anything else is a string.
local function parse_values(args)
  local values = {}
  for _, arg in ipairs(args) do
    local key, text = arg:match('^([%a_][%w_]*)=(.*)$')
    if not key then
      error('expected key=value, got ' .. arg, 0)
    end
    local ok, decoded = pcall(vim.json.decode, text)
    if ok then
      values[key] = decoded
    else
      values[key] = text
    end
  end
  return values
end

local function read_model(path)
  if type(path) == 'table' then
    return path -- setup({ model = { entities = ... } }): the model itself
  end
  local file = io.open(path, 'r')
  if not file then
    error('cannot read the model ' .. path, 0)
  end
  local text = file:read('*a')
  file:close()
  local ok, model = pcall(vim.json.decode, text)
  if not ok then
    error('the model ' .. path .. ' is not JSON: ' .. tostring(model), 0)
  end
  return model
end

-- `store` with its extension replaced by ".model.json" (contacts.sqlite: contacts.model.json).
function M.model_beside(store)
  return (store:gsub('%.[^./]*$', '')) .. '.model.json'
end

-- The model to send with store/open for `store`: `model` (open's opts.model), else setup's
-- model, else <store>.model.json when that file exists, else nil: fetchd then opens an
-- existing store with the model it records, and refuses a new one (protocol.md §5).
function M.model_for(store, model)
  model = model or M.config.model
  if model ~= nil and model ~= '' then
    return model
  end
  local beside = M.model_beside(store)
  if store ~= ':memory:' and vim.fn.filereadable(beside) == 1 then
    return beside
  end
  return nil
end

-- Sort keys as sortDescriptors: "name,-age" (or { 'name', '-age' }) is name ascending, then
-- age descending; '-' before a key is descending, '+' (or nothing) ascending. nil or '': none.
function M.parse_sort(spec)
  if spec == nil or spec == '' then
    return nil
  end
  local keys = type(spec) == 'table' and spec or vim.split(spec, ',', { plain = true })
  local descriptors = {}
  for _, key in ipairs(keys) do
    local sign, path = key:match('^([+-]?)([%a_][%w_.]*)$')
    if not path then
      local all = type(spec) == 'table' and table.concat(spec, ',') or spec
      error(string.format("bad sort key '%s' in '%s': expected keys separated by commas, each "
        .. "with '-' before it for descending (name,-age)", key, all), 0)
    end
    descriptors[#descriptors + 1] = { key = path, ascending = sign ~= '-' }
  end
  return descriptors
end

M.OPEN_USAGE = 'FetchdOpen {store} {entity} [{sort}] [{section}]'

-- :FetchdOpen's arguments: {store} {entity} [{sort}] [{section}], where {sort} is one
-- argument of comma-separated keys (so a section never reads as a sort key), and
-- sort=KEYS / section=KEY name either one (section=initial alone: sections, no sort keys).
function M.parse_open_args(fargs)
  local positional, named = {}, {}
  for _, arg in ipairs(fargs) do
    local key, value = arg:match('^(%a+)=(.*)$')
    if key == 'sort' or key == 'section' then
      if named[key] ~= nil then
        error(key .. '= is given twice; usage: ' .. M.OPEN_USAGE, 0)
      end
      named[key] = value
    else
      positional[#positional + 1] = arg
    end
  end
  if #positional < 2 or #positional > 4 then
    error('usage: ' .. M.OPEN_USAGE .. ' (sort keys separated by commas: name,-age)', 0)
  end
  local opts = { store = positional[1], entity = positional[2], sort = positional[3], section = positional[4] }
  for key, value in pairs(named) do
    if opts[key] ~= nil then
      error(key .. ' is given twice; usage: ' .. M.OPEN_USAGE, 0)
    end
    opts[key] = value
  end
  return opts
end

local function expand(store)
  if store:sub(1, 1) == '~' then
    return vim.fn.expand(store) -- fetchd gets the path as it is, and no shell expands it
  end
  return store
end

-- Opens `store` (a SQLite path or ":memory:") in a new fetchd and shows `entity` sorted by
-- `sort` (M.parse_sort; none: by id) and sectioned by `section` (optional). The model is
-- M.model_for(store, opts.model). Returns the view; view.ready turns true once it shows the rows.
function M.open(opts)
  need(type(opts) == 'table' and opts.store and opts.entity, 'open: store and entity are required')
  local store = expand(opts.store)
  local model_path = M.model_for(store, opts.model)
  local model = model_path and read_model(model_path) or nil
  local sort = M.parse_sort(opts.sort)
  local view = setmetatable({ entity = opts.entity, mirror = Mirror.new(), errors = {}, cycles = 0, ready = false,
    model = model }, View)
  view.buf = vim.api.nvim_create_buf(true, true)
  -- the buffer number keeps the name unique when the same store is shown twice
  vim.api.nvim_buf_set_name(view.buf, 'fetchd://' .. store .. '/' .. opts.entity .. '/' .. view.buf)
  vim.bo[view.buf].buftype = 'nofile'
  vim.bo[view.buf].modifiable = false
  vim.bo[view.buf].filetype = 'fetchd'
  local cmd = M.command()
  -- checked here: vim.lsp.rpc's own message for a missing program speaks of a language server
  if vim.fn.executable(cmd) ~= 1 then
    vim.api.nvim_buf_delete(view.buf, { force = true })
    error(string.format("no fetchd to start: '%s' is not an executable %s (set cmd in require('fetchd').setup, "
      .. 'or $FETCHD, or put fetchd on PATH)', cmd, cmd:find('/', 1, true) and 'file' or 'on PATH'), 0)
  end
  local path = vim.fn.exepath(cmd)
  local started, session = pcall(Session.start, cmd, M.arguments(), function(method, params)
    view:on_notification(method, params)
  end, function(code, signal)
    report(string.format('fetchd exited (code %d, signal %d): the buffer is no longer live', code, signal))
  end)
  if not started then
    vim.api.nvim_buf_delete(view.buf, { force = true })
    error(session)
  end
  view.session = session
  M.views[view.buf] = view
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = view.buf,
    callback = function() view:close() end,
  })

  local request = { entity = opts.entity, sortDescriptors = sort }
  local create = { context = M.config.context, name = CONTROLLER, request = request }
  if opts.section and opts.section ~= '' then
    create.sectionNameKeyPath = opts.section
  end
  view.create = create -- what controller/create is sent (for scripts and tests)

  local s = view.session
  local function failed(step, err)
    view.errors[#view.errors + 1] = step .. ': ' .. error_text(err)
    report(step .. ': ' .. error_text(err))
  end
  -- initialize, store/open, controller/create, then the rows of each section once: from then
  -- on only notifications change the buffer.
  s:request('initialize', { clientInfo = { name = 'fetchd.nvim' } }, function(err, info)
    if err then return failed('initialize', err) end
    local mismatch = M.check_protocol(info, path ~= '' and path or cmd)
    if mismatch then
      -- nothing more is sent to a fetchd of another protocol: it is asked to exit
      view.errors[#view.errors + 1] = mismatch
      report(mismatch)
      return s:shutdown()
    end
    s:notify('initialized', {})
    s:request('store/open', { path = store, model = model }, function(err2)
      local data = type(err2) == 'table' and type(err2.data) == 'table' and err2.data or {}
      if data.param == 'model' and data.got == 'missing' then
        -- a new store and no model: say where the plugin looks for one
        local where = store == ':memory:' and '' or (', or put it in ' .. M.model_beside(store))
        return failed('store/open', string.format("fetchd wants %s; give one with require('fetchd').setup({ model = FILE })%s",
          tostring(data.expected), where))
      end
      if err2 then return failed('store/open', err2) end
      s:request('controller/create', create, function(err3, created)
        if err3 then return failed('controller/create', err3) end
        local rows, remaining = {}, #created.sections
        local function finish()
          view.mirror:load(created.sections, rows)
          view:redraw()
          view.ready = true
        end
        if remaining == 0 then return finish() end
        for i = 1, #created.sections do
          s:request('controller/rows', { controller = CONTROLLER, section = i - 1 }, function(err4, result)
            if err4 then return failed('controller/rows', err4) end
            rows[i] = result.objects
            remaining = remaining - 1
            if remaining == 0 then finish() end
          end)
        end
      end)
    end)
  end)
  vim.api.nvim_set_current_buf(view.buf)
  return view
end

function M.current()
  return M.views[vim.api.nvim_get_current_buf()]
end

-- The commands act on the current buffer's view; `done(err, result)` is for scripts.
function M.insert(values, done)
  local view = need(M.current(), 'not a fetchd buffer')
  view:change('context/insert', { entity = view.entity, values = values }, done)
end

function M.edit(values, done)
  local view = need(M.current(), 'not a fetchd buffer')
  local object = need(view:object_at_cursor(), 'no row under the cursor')
  view:change('context/update', { id = object.id, values = values }, done)
end

function M.delete(done)
  local view = need(M.current(), 'not a fetchd buffer')
  local object = need(view:object_at_cursor(), 'no row under the cursor')
  view:change('context/delete', { id = object.id }, done)
end

function M.save(done)
  need(M.current(), 'not a fetchd buffer'):change('context/save', {}, done)
end

function M.rollback(done)
  need(M.current(), 'not a fetchd buffer'):change('context/rollback', {}, done)
end

-- The names of keys of the current view's entity, for completing key=value arguments: the
-- model's attributes when the view has its model, and the keys of the rows it shows.
local function view_keys(view)
  local seen, keys = {}, {}
  local function add(key)
    if key ~= 'id' and not seen[key] then
      seen[key] = true
      keys[#keys + 1] = key
    end
  end
  for _, entity in ipairs(type(view.model) == 'table' and view.model.entities or {}) do
    if entity.name == view.entity then
      for key in pairs(entity.attributes or {}) do add(key) end
    end
  end
  for _, section in ipairs(view.mirror.sections) do
    for _, row in ipairs(section.rows) do
      for key in pairs(row) do add(key) end
    end
  end
  table.sort(keys)
  return keys
end

local function matching(candidates, lead)
  local found = {}
  for _, candidate in ipairs(candidates) do
    if candidate:sub(1, #lead) == lead then
      found[#found + 1] = candidate
    end
  end
  return found
end

-- The entities of the model a store would open with, and an entity's attributes (for
-- completion only: {} when no model file is known).
local function model_entities(store)
  local path = store and M.model_for(expand(store))
  local ok, model = pcall(function() return path and read_model(path) end)
  return ok and type(model) == 'table' and model.entities or {}
end

local function attribute_names(store, entity)
  local names = {}
  for _, e in ipairs(model_entities(store)) do
    if e.name == entity then
      for key in pairs(e.attributes or {}) do names[#names + 1] = key end
    end
  end
  table.sort(names)
  return names
end

-- :FetchdOpen's completion: files (and :memory:) for the store; the entities and attributes
-- of its model when a model file is known (setup's, or <store>.model.json).
function M.complete_open(lead, line, pos)
  local words = {}
  for word in line:sub(1, pos):gmatch('%S+') do
    words[#words + 1] = word
  end
  -- the argument being completed: the last word, or a new one after a space
  local index = #words - 1
  if line:sub(1, pos):match('%s$') then
    index = index + 1
  end
  if index <= 1 then
    local files = vim.fn.getcompletion(lead, 'file')
    if (':memory:'):sub(1, #lead) == lead then
      files[#files + 1] = ':memory:'
    end
    return files
  end
  local store = words[2]
  if index == 2 then
    local names = {}
    for _, e in ipairs(model_entities(store)) do names[#names + 1] = e.name end
    return matching(names, lead)
  end
  local attributes = attribute_names(store, words[3])
  local section = lead:match('^section=(.*)$')
  if index == 4 or section then
    local prefix = section and 'section=' or ''
    local found = matching(attributes, section or lead)
    for i, name in ipairs(found) do found[i] = prefix .. name end
    return found
  end
  -- sort keys: complete the last comma-separated key, keeping the ones before and its '-'
  local done, sign, key = lead:match('^(.-)([+-]?)([^,+-]*)$')
  local found = {}
  for _, name in ipairs(matching(attributes, key)) do
    found[#found + 1] = done .. sign .. name
  end
  return found
end

-- :FetchdInsert and :FetchdEdit: key= for the keys of the current view's entity.
function M.complete_values(lead)
  local view = M.current()
  if not view or lead:find('=', 1, true) then
    return {}
  end
  local keys = {}
  for _, key in ipairs(view_keys(view)) do keys[#keys + 1] = key .. '=' end
  return matching(keys, lead)
end

-- The commands of plugin/fetchd.lua: `name` with the arguments of nvim_create_user_command's
-- callback. An error is reported (vim.notify), not raised: a command's stack trace says nothing.
local COMMANDS = {
  open = function(a) M.open(M.parse_open_args(a.fargs)) end,
  insert = function(a) M.insert(parse_values(a.fargs)) end,
  edit = function(a) M.edit(parse_values(a.fargs)) end,
  delete = function() M.delete() end,
  save = function() M.save() end,
  rollback = function() M.rollback() end,
}

function M.run(name, args)
  local ok, err = pcall(COMMANDS[name], args or { fargs = {} })
  if not ok then
    report(tostring(err))
  end
end

local TYPES = { cmd = { 'string', 'table' }, args = 'table', model = { 'string', 'table' }, context = 'string' }

-- Configuration only, before or after plugin/fetchd.lua defines the commands; a later call
-- changes the keys it gives and keeps the others. Keys: cmd, args, model, context
-- (:help fetchd-setup). Views already open keep the fetchd they started.
function M.setup(opts)
  opts = opts or {}
  local config = vim.deepcopy(M.config)
  for key, value in pairs(opts) do
    local want = TYPES[key]
    if not want then
      report(string.format("setup: unknown option '%s' (known: cmd, args, model, context)", key),
        vim.log.levels.WARN)
    else
      local wanted = type(want) == 'table' and want or { want }
      if not vim.tbl_contains(wanted, type(value)) then
        error(string.format('fetchd.setup: %s should be a %s, got a %s', key, table.concat(wanted, ' or '),
          type(value)), 2)
      end
      config[key] = value
    end
  end
  M.config = config
end

M.parse_values = parse_values
return M
