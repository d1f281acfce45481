--- tide.json: a small JSON encoder for manifests and logs.
-- Tables with consecutive integer keys 1..n become arrays, others objects
-- (keys sorted, so the output is deterministic).  Non-finite numbers become null.
local M = {}

local escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

local function str(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function isarray(t)
  local n = #t
  local count = 0
  for _ in pairs(t) do count = count + 1 end
  return count == n
end

local function enc(v, indent, depth, seen)
  local t = type(v)
  if t == "nil" then return "null" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    if math.type(v) == "integer" then return tostring(v) end
    return string.format("%.17g", v)
  end
  if t == "string" then return str(v) end
  if t == "table" then
    if seen[v] then error("tide.json: cyclic table", 0) end
    seen[v] = true
    local pad = indent and ("\n" .. string.rep(indent, depth + 1)) or ""
    local close = indent and ("\n" .. string.rep(indent, depth)) or ""
    local sep = indent and ": " or ":"
    local parts = {}
    local out
    if isarray(v) and next(v) ~= nil then
      for i = 1, #v do parts[i] = pad .. enc(v[i], indent, depth + 1, seen) end
      out = "[" .. table.concat(parts, ",") .. close .. "]"
    elseif next(v) == nil then
      out = "{}"
    else
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = tostring(k) end
      table.sort(keys)
      for i, k in ipairs(keys) do
        local val = v[k]
        if val == nil then val = v[tonumber(k)] end
        parts[i] = pad .. str(k) .. sep .. enc(val, indent, depth + 1, seen)
      end
      out = "{" .. table.concat(parts, ",") .. close .. "}"
    end
    seen[v] = nil
    return out
  end
  return str(tostring(v))
end

--- Encode v; indent (e.g. "  ") pretty-prints.
function M.encode(v, indent) return enc(v, indent, 0, {}) end

--- Write v as JSON to path atomically (temporary file, then rename).
local tmp_count = 0
function M.write(path, v)
  -- <dir>/.<name>.tmp-<pid>-<n>, the pattern of Tide's C writers, so
  -- tide.fileio.clean_temps removes it when a run dies in between
  local pid = require("tide.core")._process()
  tmp_count = tmp_count + 1
  local dir, name = path:match("^(.*/)([^/]*)$")
  local tmp = string.format("%s.%s.tmp-%d-%d", dir or "", name or path, pid, 900000000 + tmp_count)
  local f, err = io.open(tmp, "w")
  if not f then return nil, err end
  f:write(M.encode(v, "  "), "\n")
  local ok, werr = f:close()
  if not ok then
    os.remove(tmp)
    return nil, werr
  end
  local rok, rerr = os.rename(tmp, path)
  if not rok then return nil, rerr end
  return true
end

--- Decode a JSON text (as written by M.encode) into Lua values: objects and
-- arrays become tables, null becomes nil (json.null inside arrays keeps their
-- length).  Returns the value, or nil and a message naming the position.
M.null = setmetatable({}, { __tostring = function() return "null" end })

function M.decode(text)
  if type(text) ~= "string" then return nil, "tide.json.decode: string expected, got " .. type(text) end
  local pos = 1
  local function fail(msg) error({ msg = string.format("tide.json.decode: %s at character %d", msg, pos) }, 0) end
  local function ws() pos = text:find("[^ \t\r\n]", pos) or #text + 1 end
  local value
  local unesc = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
  local function str()
    pos = pos + 1
    local parts = {}
    while true do
      local a, b = text:find('["\\]', pos)
      if not a then fail("unterminated string") end
      parts[#parts + 1] = text:sub(pos, a - 1)
      if text:sub(a, a) == '"' then
        pos = a + 1
        return table.concat(parts)
      end
      local c = text:sub(a + 1, a + 1)
      if c == "u" then
        local hex = text:sub(a + 2, a + 5)
        if not hex:match("^%x%x%x%x$") then pos = a; fail("bad \\u escape") end
        parts[#parts + 1] = utf8.char(tonumber(hex, 16))
        pos = a + 6
      elseif unesc[c] then
        parts[#parts + 1] = unesc[c]
        pos = a + 2
      else
        pos = a
        fail("bad escape")
      end
    end
  end
  function value()
    ws()
    local c = text:sub(pos, pos)
    if c == "{" then
      local t = {}
      pos = pos + 1
      ws()
      if text:sub(pos, pos) == "}" then pos = pos + 1; return t end
      while true do
        ws()
        if text:sub(pos, pos) ~= '"' then fail("object key expected") end
        local k = str()
        ws()
        if text:sub(pos, pos) ~= ":" then fail("':' expected") end
        pos = pos + 1
        local v = value()
        if v ~= M.null then t[k] = v end
        ws()
        local d = text:sub(pos, pos)
        pos = pos + 1
        if d == "}" then return t end
        if d ~= "," then pos = pos - 1; fail("',' or '}' expected") end
      end
    elseif c == "[" then
      local t = {}
      pos = pos + 1
      ws()
      if text:sub(pos, pos) == "]" then pos = pos + 1; return t end
      while true do
        t[#t + 1] = value()
        ws()
        local d = text:sub(pos, pos)
        pos = pos + 1
        if d == "]" then return t end
        if d ~= "," then pos = pos - 1; fail("',' or ']' expected") end
      end
    elseif c == '"' then
      return str()
    elseif text:find("^true", pos) then pos = pos + 4; return true
    elseif text:find("^false", pos) then pos = pos + 5; return false
    elseif text:find("^null", pos) then pos = pos + 4; return M.null
    else
      local num = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
      if not num or num == "" or num == "-" then fail("unexpected '" .. c .. "'") end
      pos = pos + #num
      local v = math.tointeger(tonumber(num)) or tonumber(num)
      if v == nil then fail("bad number") end
      return v
    end
  end
  local ok, res = pcall(function()
    local v = value()
    ws()
    if pos <= #text then fail("trailing characters") end
    return v
  end)
  if not ok then return nil, type(res) == "table" and res.msg or tostring(res) end
  if res == M.null then return nil end
  return res
end

--- Read and decode a JSON file; nil and a message when it is missing or broken.
function M.read(path)
  local f, err = io.open(path)
  if not f then return nil, err end
  local text = f:read("a")
  f:close()
  return M.decode(text)
end

return M
