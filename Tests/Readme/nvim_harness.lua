-- The README's Neovim block in nvim --headless (Tests/Readme/readme_test.py): the block as
-- init.lua, then the README's :FetchdOpen on the store the runner seeded. Passes (exit 0) when
-- the buffer shows READMETEST_EXPECT; what the plugin reports with vim.notify goes to stderr,
-- where the runner looks for warnings and errors.
local function fail(message)
  io.stderr:write('readme-test nvim: error: ' .. message .. '\n')
  vim.cmd('cquit 1')
end

local level_names = {}
for name, number in pairs(vim.log.levels) do
  level_names[number] = name:lower() -- ERROR -> "error", WARN -> "warn"
end
vim.notify = function(message, level)
  local name = level_names[level or vim.log.levels.INFO] or tostring(level)
  if name == 'warn' then
    name = 'warning' -- the word the runner looks for
  end
  io.stderr:write(string.format('nvim notify %s: %s\n', name, message))
end

local ok, err = pcall(dofile, os.getenv('READMETEST_INIT'))
if not ok then
  return fail('the init.lua block failed: ' .. tostring(err))
end
if vim.fn.exists(':FetchdOpen') ~= 2 then
  return fail('the plugin did not define :FetchdOpen')
end
ok, err = pcall(vim.cmd, 'FetchdOpen ' .. os.getenv('READMETEST_OPEN'))
if not ok then
  return fail(':FetchdOpen failed: ' .. tostring(err))
end
local fetchd = require('fetchd')
if not vim.wait(10000, function() local v = fetchd.current(); return v ~= nil and v.ready end, 10) then
  return fail('the buffer did not fill within 10 s')
end
local view = fetchd.current()
local text = table.concat(vim.api.nvim_buf_get_lines(view.buf, 0, -1, false), '\n')
if not text:find(os.getenv('READMETEST_EXPECT'), 1, true) then
  return fail('the buffer does not show ' .. os.getenv('READMETEST_EXPECT') .. ':\n' .. text)
end
if #view.errors > 0 then
  return fail(table.concat(view.errors, '; '))
end
-- Wiping the buffer ends fetchd (shutdown, exit), as the README says.
vim.cmd('bwipeout!')
vim.wait(2000, function() return next(fetchd.views) == nil end, 10)
vim.cmd('qall!')
