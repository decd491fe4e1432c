-- Wireshark/tshark dissector for Flare packets (flaresim's flare_dense protocol): the 16-byte
-- Flare header of handlers/flare/flare_proto.h and the elements after it, decoded by dtype, with
-- expert info wherever the flare_dense handler would drop the packet as malformed.
--
--   tshark -X lua_script:scripts/wireshark/flare.lua -r egress.pcapng -V
--
-- Flare rides on UDP: the dissector is registered on UDP port 4950, the port of flare_dense's
-- default parser rule; for another port, Decode As (tshark -d udp.port==N,flare).
-- docs/PROTOCOLS.md, "Looking at captures in Wireshark", lists the fields.

local HEADER_BYTES = 16
local VERSION = 1
local DEFAULT_UDP_PORT = 4950
local RANK_SWITCH = 0xFFFF

local flare = Proto("flare", "Flare in-network aggregation")

-- Names as flaresim's text traces write them (flare_frame.cpp).
local kinds = { [0] = "contrib", [1] = "result" }
local dtypes = { [0] = "int32", [1] = "int16", [2] = "int8", [3] = "float32" }
local ops = { [0] = "sum", [1] = "min", [2] = "max" }

local f = {
  version = ProtoField.uint8("flare.version", "Version", base.DEC),
  kind = ProtoField.uint8("flare.kind", "Kind", base.DEC, kinds),
  dtype = ProtoField.uint8("flare.dtype", "Element type", base.DEC, dtypes),
  op = ProtoField.uint8("flare.op", "Operator", base.DEC, ops),
  allreduce = ProtoField.uint32("flare.allreduce", "Allreduce id", base.DEC),
  block = ProtoField.uint32("flare.block", "Block id", base.DEC),
  rank = ProtoField.uint16("flare.rank", "Sender rank", base.DEC),
  count = ProtoField.uint16("flare.count", "Element count", base.DEC),
  elements = ProtoField.bytes("flare.elements", "Elements"),
  int32 = ProtoField.int32("flare.elem.int32", "Element", base.DEC),
  int16 = ProtoField.int16("flare.elem.int16", "Element", base.DEC),
  int8 = ProtoField.int8("flare.elem.int8", "Element", base.DEC),
  float32 = ProtoField.float("flare.elem.float32", "Element"),
}
flare.fields = f

local ex = {
  truncated = ProtoExpert.new("flare.truncated", "Flare header truncated", expert.group.MALFORMED,
                              expert.severity.ERROR),
  bad_header = ProtoExpert.new("flare.bad_header", "Flare header field out of range",
                               expert.group.MALFORMED, expert.severity.ERROR),
  bad_length = ProtoExpert.new("flare.bad_length", "Flare element bytes do not match the count",
                               expert.group.MALFORMED, expert.severity.ERROR),
}
flare.experts = ex

-- The header's fields in wire order (flare_proto.h's FLARE_OFF_*), all big-endian.
local header_layout = {
  { "version", 0, 1 }, { "kind", 1, 1 }, { "dtype", 2, 1 }, { "op", 3, 1 },
  { "allreduce", 4, 4 }, { "block", 8, 4 }, { "rank", 12, 2 }, { "count", 14, 2 },
}

-- Element types: bytes per element and their field (flare_dtype_bytes).
local element_types = {
  [0] = { bytes = 4, field = f.int32 }, [1] = { bytes = 2, field = f.int16 },
  [2] = { bytes = 1, field = f.int8 }, [3] = { bytes = 4, field = f.float32 },
}

-- Adds the header fields that the packet holds; returns their values by name.
local function dissect_header(tvb, tree)
  local h = {}
  for _, fld in ipairs(header_layout) do
    local name, offset, size = fld[1], fld[2], fld[3]
    if offset + size > tvb:len() then break end
    local item = tree:add(f[name], tvb(offset, size))
    h[name] = tvb(offset, size):uint()
    if name == "rank" and h.rank == RANK_SWITCH then item:append_text(" (the switch)") end
  end
  return h
end

-- The flare_dense handler's header checks (flare_dense.c): an expert error for each value it
-- would drop the packet for. Returns true when the elements can be decoded.
local function check_header(h, tree)
  local ok = true
  local function bad(text)
    tree:add_proto_expert_info(ex.bad_header, text)
    ok = false
  end
  if h.version ~= VERSION then
    bad("Unknown Flare version " .. h.version .. " (this dissector reads version " .. VERSION .. ")")
    return false
  end
  if not kinds[h.kind] then bad("Unknown kind " .. h.kind .. " (0 contrib, 1 result)") end
  if not dtypes[h.dtype] then bad("Unknown element type " .. h.dtype .. " (0 int32, 1 int16, 2 int8, 3 float32)") end
  if not ops[h.op] then bad("Unknown operator " .. h.op .. " (0 sum, 1 min, 2 max)") end
  if h.count == 0 then bad("Element count 0 (a Flare packet carries 1 to 65535 elements)") end
  return ok and dtypes[h.dtype] ~= nil
end

-- Flare dense: `count` elements of the header's dtype, little-endian, and nothing after them.
local function dissect_dense(tvb, h, tree)
  local t = element_types[h.dtype]
  local carried = tvb:len() - HEADER_BYTES
  local want = h.count * t.bytes
  local elems = tree:add(f.elements, tvb(HEADER_BYTES, carried))
  elems:set_text(string.format("Elements: %d x %s", h.count, dtypes[h.dtype]))
  for i = 0, math.min(h.count, math.floor(carried / t.bytes)) - 1 do
    elems:add_le(t.field, tvb(HEADER_BYTES + i * t.bytes, t.bytes)):prepend_text("[" .. i .. "] ")
  end
  if carried ~= want then
    elems:add_proto_expert_info(ex.bad_length, string.format(
      "Element count %d x %d bytes (%s) = %d bytes, but the packet carries %d bytes after the header",
      h.count, t.bytes, dtypes[h.dtype], want, carried))
  end
end

-- How the elements after the header are laid out. Flare dense is the only layout today; Flare
-- sparse will be told apart by a flag in the header, and its decoder will be chosen here.
local function elements_dissector(h)
  return dissect_dense
end

local function summary(h)
  local rank = h.rank == RANK_SWITCH and "switch" or tostring(h.rank)
  return string.format("Flare %s ar=%d block=%d rank=%s %s %s count=%d", kinds[h.kind] or ("kind " .. h.kind),
                       h.allreduce, h.block, rank, dtypes[h.dtype] or ("dtype " .. h.dtype),
                       ops[h.op] or ("op " .. h.op), h.count)
end

function flare.dissector(tvb, pinfo, root)
  pinfo.cols.protocol = "Flare"
  local tree = root:add(flare, tvb())
  local h = dissect_header(tvb, tree)
  if tvb:len() < HEADER_BYTES then
    tree:add_proto_expert_info(ex.truncated, string.format(
      "Flare header truncated: %d of %d bytes", tvb:len(), HEADER_BYTES))
    pinfo.cols.info = "Flare, header truncated"
    return tvb:len()
  end
  tree:append_text(string.format(", %s, block %d", kinds[h.kind] or "?", h.block))
  pinfo.cols.info = summary(h)
  if check_header(h, tree) then elements_dissector(h)(tvb, h, tree) end
  return tvb:len()
end

-- Flare's default UDP port; for another one (the trace key udp=, gen --udp-port), Decode As:
-- tshark -d udp.port==N,flare.
DissectorTable.get("udp.port"):add(DEFAULT_UDP_PORT, flare)
