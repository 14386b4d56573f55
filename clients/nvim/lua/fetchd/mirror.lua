-- A controller's rows kept in Lua: sections of objects, changed only by applying a change
-- cycle with the batch rule (protocol.md §11.1), never by fetching again. Pure Lua, so the
-- same rendering serves the buffer and the test that compares it with controller/rows.
local Mirror = {}
Mirror.__index = Mirror

function Mirror.new()
  return setmetatable({ sections = {}, batch = nil }, Mirror)
end

-- Loads the result of controller/create plus each section's controller/rows.
function Mirror:load(sections, rows_by_section)
  self.sections = {}
  for i, info in ipairs(sections) do
    self.sections[i] = { name = info.name, rows = rows_by_section[i] or {} }
  end
end

local function value_text(value)
  if type(value) == 'string' then
    return value
  end
  return vim.json.encode(value)
end

-- One object as a line: its id, then key=value for every other key, keys sorted (a decoded
-- JSON object has no key order).
function Mirror.render_object(object)
  local keys = {}
  for key in pairs(object) do
    if key ~= 'id' then
      keys[#keys + 1] = key
    end
  end
  table.sort(keys)
  local parts = { '  ' .. tostring(object.id) }
  for _, key in ipairs(keys) do
    parts[#parts + 1] = key .. '=' .. value_text(object[key])
  end
  return table.concat(parts, ' ')
end

-- Sections as buffer lines (a header, then one line per row), and for each line the
-- position it shows: {section = s} for a header, {section = s, row = r} for a row.
function Mirror.render(sections)
  local lines, positions = {}, {}
  for s, section in ipairs(sections) do
    lines[#lines + 1] = '## ' .. section.name .. ' (' .. #section.rows .. ')'
    positions[#positions + 1] = { section = s }
    for r, object in ipairs(section.rows) do
      lines[#lines + 1] = Mirror.render_object(object)
      positions[#positions + 1] = { section = s, row = r }
    end
  end
  return lines, positions
end

-- Notifications of one cycle are collected between willChangeContent and didChangeContent.
function Mirror:begin_batch()
  self.batch = { section_deletes = {}, section_inserts = {}, removals = {}, insertions = {}, updates = {} }
end

function Mirror:add_section_change(params)
  assert(self.batch, 'didChangeSection outside willChangeContent/didChangeContent')
  local list = params.type == 'delete' and self.batch.section_deletes or self.batch.section_inserts
  list[#list + 1] = params
end

function Mirror:add_object_change(params)
  assert(self.batch, 'didChangeObject outside willChangeContent/didChangeContent')
  local b = self.batch
  if params.type == 'delete' or params.type == 'move' then
    b.removals[#b.removals + 1] = params
  end
  if params.type == 'insert' or params.type == 'move' then
    b.insertions[#b.insertions + 1] = params
  end
  if params.type == 'update' then
    b.updates[#b.updates + 1] = params
  end
end

local function path_less(a, b)
  if a[1] ~= b[1] then
    return a[1] < b[1]
  end
  return a[2] < b[2]
end

-- Applies the collected batch in the five steps of §11.1, checking each step as it goes.
-- Index paths and section indexes are 0-based on the wire. Raises on an inconsistent batch.
function Mirror:apply_batch()
  local b = assert(self.batch, 'didChangeContent without willChangeContent')
  self.batch = nil
  local secs = self.sections
  -- 1. rows of deletes and moves (old index paths), each checked against the row it names;
  -- a section that loses many is rebuilt in one pass, not shifted once per row
  local gone = {}
  for _, change in ipairs(b.removals) do
    local section = secs[change.indexPath[1] + 1]
    local at = change.indexPath[2] + 1
    local row = section and section.rows[at]
    assert(row and row.id == change.id, 'no row ' .. change.id .. ' at ' .. vim.inspect(change.indexPath))
    gone[section] = gone[section] or {}
    assert(not gone[section][at], 'row ' .. change.id .. ' removed twice')
    gone[section][at] = true
  end
  for section, rows in pairs(gone) do
    local kept = {}
    for i, row in ipairs(section.rows) do
      if not rows[i] then
        kept[#kept + 1] = row
      end
    end
    section.rows = kept
  end
  -- 2. deleted sections, highest first (empty by now)
  table.sort(b.section_deletes, function(x, y) return x.sectionIndex > y.sectionIndex end)
  for _, change in ipairs(b.section_deletes) do
    local section = secs[change.sectionIndex + 1]
    assert(section and section.name == change.section.name and #section.rows == 0,
      'cannot delete section ' .. change.sectionIndex)
    table.remove(secs, change.sectionIndex + 1)
  end
  -- 3. inserted sections, empty, lowest first
  table.sort(b.section_inserts, function(x, y) return x.sectionIndex < y.sectionIndex end)
  for _, change in ipairs(b.section_inserts) do
    assert(change.sectionIndex <= #secs, 'section insert past the end: ' .. change.sectionIndex)
    table.insert(secs, change.sectionIndex + 1, { name = change.section.name, rows = {} })
  end
  -- 4. objects of inserts and moves, lowest new index path first, as if one after another:
  -- each section's new rows are merged with its kept ones in one pass
  table.sort(b.insertions, function(x, y) return path_less(x.newIndexPath, y.newIndexPath) end)
  local added = {}
  for _, change in ipairs(b.insertions) do
    local section = secs[change.newIndexPath[1] + 1]
    assert(section, 'insert out of range: ' .. change.id)
    added[section] = added[section] or {}
    table.insert(added[section], change)
  end
  for section, changes in pairs(added) do
    local out, taken = {}, 0
    for _, change in ipairs(changes) do
      local take = change.newIndexPath[2] - #out
      assert(take >= 0 and taken + take <= #section.rows, 'insert out of range: ' .. change.id)
      for i = taken + 1, taken + take do
        out[#out + 1] = section.rows[i]
      end
      taken = taken + take
      out[#out + 1] = change.object or { id = change.id }
    end
    for i = taken + 1, #section.rows do
      out[#out + 1] = section.rows[i]
    end
    section.rows = out
  end
  for _, change in ipairs(b.section_inserts) do
    assert(#secs[change.sectionIndex + 1].rows == change.section.numberOfObjects,
      'section ' .. change.section.name .. ' has the wrong row count')
  end
  -- 5. updates replace their row in place
  for _, change in ipairs(b.updates) do
    local section = secs[change.newIndexPath[1] + 1]
    local row = section and section.rows[change.newIndexPath[2] + 1]
    assert(row and row.id == change.id, 'no row ' .. change.id .. ' to update')
    section.rows[change.newIndexPath[2] + 1] = change.object or row
  end
end

return Mirror
