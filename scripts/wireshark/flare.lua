-- Wireshark/tshark dissector for Flare packets (flaresim's flare_dense and flare_sparse
-- protocols): the Flare header of handlers/flare/flare_proto.h (16 bytes; 20 for sparse packets,
-- whose kind byte has the sparse flag) and what follows it: the elements (dense) or the
-- (index, value) pairs (sparse), decoded by dtype, with expert info wherever the handler would
-- drop the packet as malformed.
--
--   tshark -X lua_script:scripts/wireshark/flare.lua -r egress.pcapng -V
--
-- Flare rides on UDP: the dissector is registered on UDP port 4950, the port of the default
-- parser rules (dense and sparse packets share it); for another port, Decode As
-- (tshark -d udp.port==N,flare).
-- docs/PROTOCOLS.md, "Looking at captures in Wireshark", lists the fields.

local HEADER_BYTES = 16
local SPARSE_HEADER_BYTES = 20
local VERSION = 1
local DEFAULT_UDP_PORT = 4950
local RANK_SWITCH = 0xFFFF
-- The sparse kind byte: flags in the high bits, the kind in the low four (flare_proto.h).
local FLAG_SPARSE = 0x80
local FLAG_LAST = 0x40
local KIND_MASK = 0x0F
local SPARSE_INDEX_BYTES = 4
local SPARSE_MAX_SHARDS = 64 -- flare_sparse.h: a sender's packets for a block are 0 .. 63

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
  flags = ProtoField.uint8("flare.flags", "Flags", base.HEX),
  sparse = ProtoField.bool("flare.flags.sparse", "Sparse", 8, nil, FLAG_SPARSE),
  last = ProtoField.bool("flare.flags.last", "Last", 8, nil, FLAG_LAST),
  shard = ProtoField.uint16("flare.shard", "Shard", base.DEC),
  shards = ProtoField.uint16("flare.shards", "Shards", base.DEC),
  elements = ProtoField.bytes("flare.elements", "Elements"),
  pairs = ProtoField.bytes("flare.pairs", "Pairs"),
  pair = ProtoField.bytes("flare.pair", "Pair"),
  index = ProtoField.uint32("flare.pair.index", "Index", base.DEC),
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
  bad_length = ProtoExpert.new("flare.bad_length", "Flare element or pair bytes do not match the count",
                               expert.group.MALFORMED, expert.severity.ERROR),
}
flare.experts = ex

-- The header's fields in wire order (flare_proto.h's FLARE_OFF_*), all big-endian; a sparse
-- header has the shard fields after them.
local header_layout = {
  { "version", 0, 1 }, { "kind", 1, 1 }, { "dtype", 2, 1 }, { "op", 3, 1 },
  { "allreduce", 4, 4 }, { "block", 8, 4 }, { "rank", 12, 2 }, { "count", 14, 2 },
}
local sparse_layout = {}
for i, fld in ipairs(header_layout) do sparse_layout[i] = fld end
table.insert(sparse_layout, { "shard", 16, 2 })
table.insert(sparse_layout, { "shards", 18, 2 })

-- Bit `flag` (a power of two) of `byte`. (Lua 5.2: no bitwise operators.)
local function has_flag(byte, flag)
  return math.floor(byte / flag) % 2 == 1
end

-- Whether the packet is sparse: the sparse flag in its kind byte.
local function is_sparse(tvb)
  return tvb:len() > 1 and has_flag(tvb(1, 1):uint(), FLAG_SPARSE)
end

-- Element types: bytes per element and their field (flare_dtype_bytes).
local element_types = {
  [0] = { bytes = 4, field = f.int32 }, [1] = { bytes = 2, field = f.int16 },
  [2] = { bytes = 1, field = f.int8 }, [3] = { bytes = 4, field = f.float32 },
}

-- A sparse packet's kind byte: the kind (low four bits), then the flags with a line each.
local function add_sparse_kind(tvb, tree, h)
  local byte = tvb(1, 1):uint()
  h.kind = byte % (KIND_MASK + 1)
  h.flags = byte - h.kind
  h.last = has_flag(byte, FLAG_LAST)
  tree:add(f.kind, tvb(1, 1), h.kind)
  local flags = tree:add(f.flags, tvb(1, 1), h.flags)
  flags:append_text(h.last and " (sparse, last)" or " (sparse)")
  flags:add(f.sparse, tvb(1, 1))
  flags:add(f.last, tvb(1, 1))
end

-- Adds the header fields that the packet holds; returns their values by name.
local function dissect_header(tvb, tree, sparse)
  local h = { sparse = sparse }
  for _, fld in ipairs(sparse and sparse_layout or header_layout) do
    local name, offset, size = fld[1], fld[2], fld[3]
    if offset + size > tvb:len() then break end
    if name == "kind" and sparse then
      add_sparse_kind(tvb, tree, h)
    else
      local item = tree:add(f[name], tvb(offset, size))
      h[name] = tvb(offset, size):uint()
      if name == "rank" and h.rank == RANK_SWITCH then item:append_text(" (the switch)") end
      if name == "count" and sparse then item:set_text("Pair count: " .. h.count) end
    end
  end
  return h
end

-- A sparse header's flags and shard numbers (flare_proto.h): an expert error for each value the
-- flare_sparse handler would drop the packet for.
local function check_sparse(h, bad)
  local unknown = h.flags - FLAG_SPARSE - (h.last and FLAG_LAST or 0)
  if unknown ~= 0 then bad(string.format("Unknown flags 0x%02x in the kind byte (0x80 sparse, 0x40 last)", unknown)) end
  if h.shard >= SPARSE_MAX_SHARDS then
    bad(string.format("Shard %d (a sender numbers its packets for a block 0 to %d)", h.shard, SPARSE_MAX_SHARDS - 1))
  end
  if h.last and h.shards ~= h.shard + 1 then
    bad(string.format("Last packet with shard %d and shards %d (the last packet's shard is shards - 1)", h.shard,
                      h.shards))
  elseif not h.last and h.shards ~= 0 then
    bad(string.format("Shards %d in a packet not flagged last (only the last one carries it, the others 0)", h.shards))
  end
end

-- The header checks of the flare_dense handler (flare_dense.c) and, for sparse packets, of the
-- sparse wire format: an expert error for each value the handler would drop the packet for.
-- Returns true when the elements or pairs can be decoded.
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
  if h.sparse then check_sparse(h, bad) end
  if not dtypes[h.dtype] then bad("Unknown element type " .. h.dtype .. " (0 int32, 1 int16, 2 int8, 3 float32)") end
  if not ops[h.op] then bad("Unknown operator " .. h.op .. " (0 sum, 1 min, 2 max)") end
  -- A sparse packet may carry no pair (an all-zero block); a dense one carries its elements.
  if h.count == 0 and not h.sparse then bad("Element count 0 (a Flare packet carries 1 to 65535 elements)") end
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

-- A pair's value as its element field shows it (float32 with six significant digits).
local function value_text(dtype, range)
  if dtype == 3 then return string.format("%.6g", range:le_float()) end
  return tostring(range:le_int())
end

-- Flare sparse: `count` pairs of a little-endian u32 index and the value in the dtype's
-- little-endian bytes, a subtree each, and nothing after them. A header-only packet (an all-zero
-- block) has none.
local function dissect_sparse(tvb, h, tree)
  local t = element_types[h.dtype]
  local pair_bytes = SPARSE_INDEX_BYTES + t.bytes
  local carried = tvb:len() - SPARSE_HEADER_BYTES
  local want = h.count * pair_bytes
  local pairs = tree:add(f.pairs, tvb(SPARSE_HEADER_BYTES, carried))
  pairs:set_text(string.format("Pairs: %d x (index, %s)", h.count, dtypes[h.dtype]))
  for i = 0, math.min(h.count, math.floor(carried / pair_bytes)) - 1 do
    local at = SPARSE_HEADER_BYTES + i * pair_bytes
    local value = tvb(at + SPARSE_INDEX_BYTES, t.bytes)
    local pair = pairs:add(f.pair, tvb(at, pair_bytes))
    pair:set_text(string.format("[%d] Index %d: %s", i, tvb(at, SPARSE_INDEX_BYTES):le_uint(),
                                value_text(h.dtype, value)))
    pair:add_le(f.index, tvb(at, SPARSE_INDEX_BYTES))
    pair:add_le(t.field, value)
  end
  if carried ~= want then
    pairs:add_proto_expert_info(ex.bad_length, string.format(
      "Pair count %d x %d bytes (index and %s) = %d bytes, but the packet carries %d bytes after the header",
      h.count, pair_bytes, dtypes[h.dtype], want, carried))
  end
end

-- How what follows the header is laid out: elements, or pairs when the sparse flag is set.
local function elements_dissector(h)
  return h.sparse and dissect_sparse or dissect_dense
end

local function summary(h)
  local rank = h.rank == RANK_SWITCH and "switch" or tostring(h.rank)
  local common = string.format("%s ar=%d block=%d rank=%s %s %s", kinds[h.kind] or ("kind " .. h.kind),
                               h.allreduce, h.block, rank, dtypes[h.dtype] or ("dtype " .. h.dtype),
                               ops[h.op] or ("op " .. h.op))
  if not h.sparse then return string.format("Flare %s count=%d", common, h.count) end
  return string.format("Flare sparse %s pairs=%d shard=%d%s", common, h.count, h.shard,
                       h.last and string.format(" last of %d", h.shards) or "")
end

function flare.dissector(tvb, pinfo, root)
  pinfo.cols.protocol = "Flare"
  local tree = root:add(flare, tvb())
  local sparse = is_sparse(tvb)
  local h = dissect_header(tvb, tree, sparse)
  local need = sparse and SPARSE_HEADER_BYTES or HEADER_BYTES
  if tvb:len() < need then
    tree:add_proto_expert_info(ex.truncated, string.format(
      "Flare %sheader truncated: %d of %d bytes", sparse and "sparse " or "", tvb:len(), need))
    pinfo.cols.info = sparse and "Flare sparse, header truncated" or "Flare, header truncated"
    return tvb:len()
  end
  tree:append_text(string.format(", %s%s, block %d", sparse and "sparse " or "", kinds[h.kind] or "?", h.block))
  pinfo.cols.info = summary(h)
  if check_header(h, tree) then elements_dissector(h)(tvb, h, tree) end
  return tvb:len()
end

-- Flare's default UDP port; for another one (the trace key udp=, gen --udp-port), Decode As:
-- tshark -d udp.port==N,flare.
DissectorTable.get("udp.port"):add(DEFAULT_UDP_PORT, flare)
