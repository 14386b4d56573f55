-- One fetchd process spoken to with vim.lsp.rpc (LSP framing, Neovim >= 0.7). Responses and
-- notifications reach Lua through vim.schedule in the order fetchd wrote them, so by the time a
-- response's callback runs, every notification the request caused has been handled.
local Session = {}
Session.__index = Session

-- vim.lsp.rpc.start(cmd, args, dispatchers) before 0.10; from 0.10 the command is one list,
-- rpc.start({cmd, args...}, dispatchers), and the old form is gone.
local function rpc_start(cmd, args, dispatchers)
  if vim.fn.has('nvim-0.10') == 1 then
    local argv = { cmd }
    vim.list_extend(argv, args)
    return vim.lsp.rpc.start(argv, dispatchers)
  end
  return vim.lsp.rpc.start(cmd, args, dispatchers)
end

-- cmd: the fetchd executable; args: its arguments; on_notification(method, params);
-- on_lost(code, signal), optional: fetchd exited before stop() asked it to.
function Session.start(cmd, args, on_notification, on_lost)
  local self = setmetatable({ pending = 0, sent = {}, exited = false, stopping = false }, Session)
  self.rpc = rpc_start(cmd, args or {}, {
    notification = on_notification,
    on_exit = function(code, signal)
      self.exited = true
      self.exit_code = code
      self.exit_signal = signal
      if on_lost and not self.stopping then
        vim.schedule(function() on_lost(code, signal) end)
      end
    end,
    on_error = function(code, err)
      self.last_error = { code = code, err = err }
    end,
  })
  if not self.rpc then
    error('fetchd: could not start ' .. cmd)
  end
  -- fetchd's process id: Neovim 0.7 returns it; from 0.8 the client no longer shows it (nil)
  self.pid = self.rpc.pid
  return self
end

-- Sends a request; callback(err, result) runs on the main loop.
function Session:request(method, params, callback)
  self.pending = self.pending + 1
  self.sent[#self.sent + 1] = method
  local ok = self.rpc.request(method, params, function(err, result)
    self.pending = self.pending - 1
    callback(err, result)
  end)
  if not ok then
    self.pending = self.pending - 1
    callback({ code = -1, message = 'fetchd is not running' }, nil)
  end
end

function Session:notify(method, params)
  self.sent[#self.sent + 1] = method
  return self.rpc.notify(method, params)
end

-- Waits for the answer while the event loop runs (for scripts and tests, never in a callback).
function Session:request_sync(method, params, timeout_ms)
  local done, err, result = false, nil, nil
  self:request(method, params, function(e, r)
    done, err, result = true, e, r
  end)
  if not vim.wait(timeout_ms or 5000, function() return done end, 5) then
    return nil, { code = -1, message = method .. ' timed out' }
  end
  return result, err
end

-- LSP's ending without waiting (fit for a callback): shutdown, then exit.
function Session:shutdown()
  if self.exited or self.stopping then
    return
  end
  self.stopping = true
  self:request('shutdown', nil, function()
    self:notify('exit', nil)
  end)
end

-- Ends the process at once: terminate() from 0.8 (SIGTERM), the process handle in 0.7.
function Session:kill()
  if self.exited then
    return
  end
  if self.rpc.terminate then
    self.rpc.terminate()
  elseif self.rpc.handle and not self.rpc.handle:is_closing() then
    self.rpc.handle:kill('sigterm')
  end
end

-- LSP's ending: shutdown, then exit; a fetchd that has not exited after timeout_ms gets SIGTERM.
function Session:stop(timeout_ms)
  if self.exited then
    return
  end
  self:shutdown()
  if not vim.wait(timeout_ms or 3000, function() return self.exited end, 5) then
    self:kill()
    vim.wait(1000, function() return self.exited end, 5)
  end
end

return Session
