-- :checkhealth fetchd — which fetchd the plugin would start and from where (setup's cmd,
-- $FETCHD, PATH), its --version, and whether it speaks the plugin's protocol version (it is
-- started with setup's arguments and asked `initialize`, as :FetchdOpen does).
local M = {}

-- Neovim 0.9 added vim.health.start/ok/warn/error/info and 0.10 deprecated the report_*
-- names; 0.7 and 0.8 have only report_* (0.7 in require('health')). Same arguments in both.
local function reporter()
  local h = vim.health
  if h and h.start then
    return h
  end
  h = h or require('health')
  return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error,
    info = h.report_info }
end

local WHERE = { setup = "setup's cmd", ['$FETCHD'] = '$FETCHD', PATH = 'PATH' }

local function missing_advice(source)
  local advice = {
    'Install fetchd (the .deb or `make install` put it in the PATH; in a checkout: swift build).',
    'Or name it: export FETCHD=/path/to/fetchd, or require(\'fetchd\').setup({ cmd = \'/path/to/fetchd\' }).',
  }
  if source == 'setup' then
    table.insert(advice, 1, "setup's cmd comes before $FETCHD and PATH: correct it, or leave it out.")
  elseif source == '$FETCHD' then
    table.insert(advice, 1, '$FETCHD comes before PATH: correct it, or unset it.')
  end
  return advice
end

local TROUBLE = {
  "Start it by hand with the same arguments: it should wait for input (Ctrl-D ends it).",
  "More on stderr: setup({ args = { '--log-level', 'debug' } }); every message in a file: "
    .. "setup({ args = { '--trace', '/tmp/fetchd.trace' } }); see :help fetchd-troubleshooting",
}

-- initialize, answered or not, with a fetchd started as :FetchdOpen starts it.
local function check_protocol(health, fetchd, exe)
  local Session = require('fetchd.session')
  local started, session = pcall(Session.start, exe, fetchd.arguments(), function() end)
  if not started then
    health.error('could not start ' .. exe .. ': ' .. tostring(session), TROUBLE)
    return
  end
  local done, err, result = false, nil, nil
  session:request('initialize', { clientInfo = { name = 'fetchd.nvim checkhealth' } }, function(e, r)
    done, err, result = true, e, r
  end)
  -- a fetchd that exits at once (a bad argument) ends the wait too
  vim.wait(5000, function() return done or session.exited end, 10)
  if not done then
    local how = session.exited and string.format('exited (code %s) before answering', tostring(session.exit_code))
      or 'did not answer in 5 s'
    health.error(string.format('initialize: %s %s (arguments: %s)', exe, how, vim.inspect(fetchd.arguments())),
      TROUBLE)
  elseif err then
    health.error('initialize: ' .. (type(err) == 'table' and tostring(err.message) or tostring(err)), TROUBLE)
  else
    local mismatch = fetchd.check_protocol(result, exe)
    if mismatch then
      health.error(mismatch, { 'Install the fetchd and the plugin of one release (the .deb has both).' })
    else
      health.ok(string.format('protocol version %d, the one this plugin speaks', fetchd.PROTOCOL_VERSION))
    end
  end
  session:stop(2000)
end

function M.check()
  local health = reporter()
  local fetchd = require('fetchd')

  health.start('Neovim')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.7') == 1 then
    health.ok('Neovim ' .. version .. ' (0.7 or later is needed)')
  else
    health.error('Neovim ' .. version .. ': fetchd.nvim needs 0.7 or later')
  end

  health.start('fetchd')
  local cmd, source = fetchd.command()
  if vim.fn.executable(cmd) ~= 1 then
    health.error(string.format("no fetchd: '%s' (from %s) is not an executable %s", cmd, WHERE[source],
      cmd:find('/', 1, true) and 'file' or 'on PATH'), missing_advice(source))
  else
    local exe = vim.fn.exepath(cmd)
    health.ok(string.format('fetchd found: %s (from %s)', exe, WHERE[source]))
    local out = vim.fn.system({ exe, '--version' })
    if vim.v.shell_error == 0 then
      health.ok('fetchd --version: ' .. vim.trim(out))
    else
      health.warn(string.format('fetchd --version failed (status %d): %s', vim.v.shell_error, vim.trim(out)),
        { 'Is it fetchd? ' .. exe })
    end
    check_protocol(health, fetchd, exe)
  end

  health.start('configuration')
  local args = fetchd.arguments()
  health.info('arguments: ' .. (#args > 0 and table.concat(args, ' ') or '(none)'))
  local model = fetchd.config.model
  if type(model) == 'string' and model ~= '' then
    if vim.fn.filereadable(model) == 1 then
      health.ok('model: ' .. model)
    else
      health.error('model: cannot read ' .. model .. ' (from the current directory, ' .. vim.fn.getcwd() .. ')',
        { "Give setup's model as an absolute path, or leave it out: an existing store opens with the model it records." })
    end
  elseif type(model) == 'table' then
    health.ok('model: a table given to setup')
  else
    health.info('model: none set; a store opens with <store>.model.json when there is one, else with the model it records')
  end
end

return M
