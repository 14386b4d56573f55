-- Sourced by Neovim at startup (every plugin/ file on 'runtimepath'): defines the :Fetchd*
-- commands, so they exist without setup(), which is only configuration. The Lua modules load
-- on the first command run or completed, so startup pays for six definitions and nothing else.
if vim.g.loaded_fetchd == 1 then
  return -- sourced twice (two copies on 'runtimepath'), or turned off by the user
end
if vim.fn.has('nvim-0.7') ~= 1 then
  -- nvim_create_user_command and vim.lsp.rpc's form used here arrived in 0.7
  vim.api.nvim_echo({ { 'fetchd.nvim needs Neovim 0.7 or later', 'ErrorMsg' } }, true, {})
  return
end
vim.g.loaded_fetchd = 1

local function define(name, run, opts)
  vim.api.nvim_create_user_command(name, function(args)
    require('fetchd').run(run, args)
  end, opts)
end

local function complete_values(lead)
  return require('fetchd').complete_values(lead)
end

define('FetchdOpen', 'open', {
  nargs = '+',
  complete = function(lead, line, pos)
    return require('fetchd').complete_open(lead, line, pos)
  end,
  desc = 'fetchd: show {entity} of {store} sorted by {sort} (name,-age) in sections of {section}',
})
define('FetchdInsert', 'insert', { nargs = '+', complete = complete_values, desc = 'fetchd: insert key=value...' })
define('FetchdEdit', 'edit', {
  nargs = '+',
  complete = complete_values,
  desc = 'fetchd: set key=value... on the row under the cursor',
})
define('FetchdDelete', 'delete', { nargs = 0, desc = 'fetchd: delete the row under the cursor' })
define('FetchdSave', 'save', { nargs = 0, desc = "fetchd: save the context's changes" })
define('FetchdRollback', 'rollback', { nargs = 0, desc = "fetchd: drop the context's unsaved changes" })
