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
function M.write(path, v)
  local tmp = path .. ".tmp"
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

return M
