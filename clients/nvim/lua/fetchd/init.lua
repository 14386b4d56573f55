-- fetchd in Neovim: a controller shown in a buffer (a header per section, a line per row),
-- kept live by the controller notifications, with commands to change, save and roll back.
--   require('fetchd').setup({ cmd = 'fetchd', model = 'contacts.model.json' })
--   :FetchdOpen contacts.sqlite Contact name initial
local Session = require('fetchd.session')
local Mirror = require('fetchd.mirror')

local M = {
  config = { cmd = 'fetchd', args = {}, model = nil, context = 'main' },
  views = {}, -- by buffer number
}

local CONTROLLER = 'nvim'

local function report(message, level)
  vim.notify('fetchd: ' .. message, level or vim.log.levels.ERROR)
end

local function error_text(err)
  if type(err) == 'table' and err.message then
    return err.message
  end
  return tostring(err)
end

local View = {}
View.__index = View

function View:redraw()
  local lines, positions = Mirror.render(self.mirror.sections)
  self.positions = positions
  if not vim.api.nvim_buf_is_valid(self.buf) then
    return
  end
  vim.api.nvim_buf_set_option(self.buf, 'modifiable', true)
  vim.api.nvim_buf_set_lines(self.buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(self.buf, 'modifiable', false)
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
      error('expected key=value, got ' .. arg)
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
  local file = io.open(path, 'r')
  if not file then
    error('cannot read the model ' .. path)
  end
  local text = file:read('*a')
  file:close()
  return vim.json.decode(text)
end

-- Opens `store` (a SQLite path or ":memory:") in a new fetchd and shows `entity` sorted by
-- `sort` ("-key" descending; none: by id) and sectioned by `section` (optional).
-- The model is opts.model, else the setup's model, else the store's path with its extension
-- replaced by ".model.json". Returns the view; view.ready turns true once it shows the rows.
function M.open(opts)
  local model_path = opts.model or M.config.model or (opts.store:gsub('%.[^./]*$', '') .. '.model.json')
  local model = read_model(model_path)
  local view = setmetatable({ entity = opts.entity, mirror = Mirror.new(), errors = {}, cycles = 0, ready = false },
    View)
  view.buf = vim.api.nvim_create_buf(true, true)
  -- the buffer number keeps the name unique when the same store is shown twice
  vim.api.nvim_buf_set_name(view.buf, 'fetchd://' .. opts.store .. '/' .. opts.entity .. '/' .. view.buf)
  vim.api.nvim_buf_set_option(view.buf, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(view.buf, 'modifiable', false)
  vim.api.nvim_buf_set_option(view.buf, 'filetype', 'fetchd')
  local started, session = pcall(Session.start, M.config.cmd, M.config.args, function(method, params)
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

  local request = { entity = opts.entity }
  if opts.sort and opts.sort ~= '' then
    local descending = opts.sort:sub(1, 1) == '-'
    request.sortDescriptors = { { key = descending and opts.sort:sub(2) or opts.sort, ascending = not descending } }
  end
  local create = { context = M.config.context, name = CONTROLLER, request = request }
  if opts.section and opts.section ~= '' then
    create.sectionNameKeyPath = opts.section
  end

  local s = view.session
  local function failed(step, err)
    view.errors[#view.errors + 1] = step .. ': ' .. error_text(err)
    report(step .. ': ' .. error_text(err))
  end
  -- initialize, store/open, controller/create, then the rows of each section once: from then
  -- on only notifications change the buffer.
  s:request('initialize', { clientInfo = { name = 'fetchd.nvim' } }, function(err)
    if err then return failed('initialize', err) end
    s:notify('initialized', {})
    s:request('store/open', { path = opts.store, model = model }, function(err2)
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
  local view = assert(M.current(), 'not a fetchd buffer')
  view:change('context/insert', { entity = view.entity, values = values }, done)
end

function M.edit(values, done)
  local view = assert(M.current(), 'not a fetchd buffer')
  local object = assert(view:object_at_cursor(), 'no row under the cursor')
  view:change('context/update', { id = object.id, values = values }, done)
end

function M.delete(done)
  local view = assert(M.current(), 'not a fetchd buffer')
  local object = assert(view:object_at_cursor(), 'no row under the cursor')
  view:change('context/delete', { id = object.id }, done)
end

function M.save(done)
  assert(M.current(), 'not a fetchd buffer'):change('context/save', {}, done)
end

function M.rollback(done)
  assert(M.current(), 'not a fetchd buffer'):change('context/rollback', {}, done)
end

local function command(name, fn, opts)
  vim.api.nvim_create_user_command(name, function(args)
    local ok, err = pcall(fn, args)
    if not ok then
      report(tostring(err))
    end
  end, opts or {})
end

function M.setup(opts)
  M.config = vim.tbl_extend('force', M.config, opts or {})
  command('FetchdOpen', function(a)
    assert(#a.fargs >= 2 and #a.fargs <= 4, 'usage: FetchdOpen {store} {entity} [sort] [section]')
    M.open({ store = a.fargs[1], entity = a.fargs[2], sort = a.fargs[3], section = a.fargs[4] })
  end, { nargs = '+', complete = 'file', desc = 'FetchdOpen {store} {entity} [sort] [section]' })
  command('FetchdInsert', function(a) M.insert(parse_values(a.fargs)) end, { nargs = '+' })
  command('FetchdEdit', function(a) M.edit(parse_values(a.fargs)) end, { nargs = '+' })
  command('FetchdDelete', function() M.delete() end, {})
  command('FetchdSave', function() M.save() end, {})
  command('FetchdRollback', function() M.rollback() end, {})
end

M.parse_values = parse_values
return M
