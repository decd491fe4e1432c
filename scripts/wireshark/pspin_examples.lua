-- Wireshark/tshark dissector for the packets of flaresim's pspin_examples protocol: the 12-byte
-- message header every packet carries, the 12-byte header of the result frames the switch sends
-- back, and the 32-bit data words after them (handlers/pspin_examples/pspin_examples.h), with
-- expert info wherever the example handlers would drop a packet.
--
--   tshark -X lua_script:scripts/wireshark/pspin_examples.lua -r egress.pcapng -V
--
-- Example e's packets and results use UDP port 9100 + e (source and destination), fixed by the
-- handlers: the dissector is registered on ports 9100 to 9104 (Decode As puts it on another:
-- tshark -d udp.port==N,pspin_ex). A frame from the switch's IPv4
-- address (10.0.0.1, handlers/include/fs_packet.h) is a result (pingpong: a reply, which keeps
-- the message header); any other is a packet of a message. docs/PROTOCOLS.md, "Looking at
-- captures in Wireshark", lists the fields.

local UDP_PORT_BASE = 9100
local HEADER_BYTES = 12  -- the message header and the result header alike
local MAX_DATA_BYTES = 8128
local SWITCH_IPV4 = 0x0A000001

local pspin = Proto("pspin_ex", "PsPIN example")

-- The examples in the order of their ports (enum pspin_ex_example), by handler set name.
local examples = { [0] = "pspin_empty", [1] = "pspin_pingpong", [2] = "pspin_aggregate_global",
                   [3] = "pspin_reduce_l1", [4] = "pspin_histogram_l1" }
local PINGPONG = 1
-- The examples that read the message header and drop a packet without a data word.
local reads_message = { [2] = true, [3] = true, [4] = true }

local PACKET, REPLY, RESULT = 0, 1, 2
local frame_types = { [PACKET] = "packet", [REPLY] = "reply", [RESULT] = "result" }

local f = {
  example = ProtoField.uint8("pspin_ex.example", "Example", base.DEC, examples),
  type = ProtoField.uint8("pspin_ex.type", "Frame", base.DEC, frame_types),
  msg = ProtoField.uint32("pspin_ex.msg", "Message id", base.DEC),
  index = ProtoField.uint16("pspin_ex.index", "Packet index", base.DEC),
  packets = ProtoField.uint16("pspin_ex.packets", "Packets in the message", base.DEC),
  result_port = ProtoField.uint16("pspin_ex.result_port", "Result port", base.DEC),
  reserved = ProtoField.uint16("pspin_ex.reserved", "Reserved", base.HEX),
  cluster = ProtoField.uint32("pspin_ex.cluster", "Cluster", base.DEC),
  clusters = ProtoField.uint32("pspin_ex.clusters", "Clusters (frames of the result)", base.DEC),
  data = ProtoField.bytes("pspin_ex.data", "Data"),
  word = ProtoField.uint32("pspin_ex.word", "Word", base.DEC),
  part_word = ProtoField.bytes("pspin_ex.part_word", "Part word"),
}
pspin.fields = f

local ex = {
  truncated = ProtoExpert.new("pspin_ex.truncated", "PsPIN example header truncated",
                              expert.group.MALFORMED, expert.severity.ERROR),
  bad_header = ProtoExpert.new("pspin_ex.bad_header", "PsPIN example header field out of range",
                               expert.group.MALFORMED, expert.severity.ERROR),
  no_data = ProtoExpert.new("pspin_ex.no_data", "PsPIN example packet without a data word",
                            expert.group.MALFORMED, expert.severity.ERROR),
  too_long = ProtoExpert.new("pspin_ex.too_long", "PsPIN example packet with too much data",
                             expert.group.MALFORMED, expert.severity.ERROR),
  reserved = ProtoExpert.new("pspin_ex.reserved_not_zero", "PsPIN example reserved field not zero",
                             expert.group.PROTOCOL, expert.severity.WARN),
  part_word = ProtoExpert.new("pspin_ex.part_word_ignored", "Data ends in a part word",
                              expert.group.PROTOCOL, expert.severity.NOTE),
}
pspin.experts = ex

-- The headers' fields in wire order (PSPIN_EX_OFF_*), all big-endian.
local layouts = {
  [PACKET] = { name = "Message header", fields = { { "msg", 0, 4 }, { "index", 4, 2 },
               { "packets", 6, 2 }, { "result_port", 8, 2 }, { "reserved", 10, 2 } } },
  [RESULT] = { name = "Result header", fields = { { "msg", 0, 4 }, { "cluster", 4, 4 },
               { "clusters", 8, 4 } } },
}
layouts[REPLY] = layouts[PACKET]

local ip_src = Field.new("ip.src")

local function plural(n, what) return n .. " " .. what .. (n == 1 and "" or "s") end

-- PACKET, REPLY or RESULT: what a frame of `example` (nil: not known) is, by who sent it.
local function frame_type(example)
  local sources = { ip_src() }
  local src = sources[#sources]
  if not src or src.range:uint() ~= SWITCH_IPV4 or example == 0 then return PACKET end
  return example == PINGPONG and REPLY or RESULT
end

-- Adds the header fields the frame holds; returns their values by name.
local function dissect_header(tvb, layout, tree)
  local h = {}
  for _, fld in ipairs(layout.fields) do
    local name, offset, size = fld[1], fld[2], fld[3]
    if offset + size > tvb:len() then break end
    tree:add(f[name], tvb(offset, size))
    h[name] = tvb(offset, size):uint()
  end
  return h
end

-- The checks of the header's values: the handlers' (pspin_message.h) and the documented ranges.
local function check_header(h, ftype, tree)
  if ftype == RESULT then
    if h.clusters == 0 or h.cluster >= h.clusters then
      tree:add_proto_expert_info(ex.bad_header, string.format(
        "Cluster %d is not below the result's %d clusters", h.cluster, h.clusters))
    end
    return
  end
  if h.packets == 0 then
    tree:add_proto_expert_info(ex.bad_header, "Packet count 0 (a message has 1 to 65535 packets)")
  end
  if h.reserved ~= 0 then
    tree:add_proto_expert_info(ex.reserved, string.format("Reserved field is 0x%04x, not zero", h.reserved))
  end
end

-- The data after the header: 32-bit little-endian words (a part word at the end is ignored by
-- the handlers).
local function dissect_data(tvb, ftype, example, name, tree)
  local bytes = tvb:len() - HEADER_BYTES
  local words = math.floor(bytes / 4)
  if ftype == PACKET and reads_message[example] then
    if words == 0 then
      tree:add_proto_expert_info(ex.no_data, string.format(
        "No data word (%d data bytes): %s drops the packet as malformed", bytes, name))
    elseif bytes > MAX_DATA_BYTES then
      tree:add_proto_expert_info(ex.too_long, string.format(
        "%d data bytes, more than the %d a packet may carry: %s drops it (too_long)", bytes,
        MAX_DATA_BYTES, name))
    end
  end
  if bytes == 0 then return words end
  local data = tree:add(f.data, tvb(HEADER_BYTES, bytes))
  data:set_text("Data: " .. plural(words, "word"))
  for i = 0, words - 1 do
    data:add_le(f.word, tvb(HEADER_BYTES + 4 * i, 4)):prepend_text("[" .. i .. "] ")
  end
  if bytes % 4 ~= 0 then
    local part = data:add(f.part_word, tvb(HEADER_BYTES + 4 * words, bytes % 4))
    part:add_proto_expert_info(ex.part_word, string.format(
      "%d bytes after the last whole word (the handlers ignore them)", bytes % 4))
  end
  return words
end

local function summary(name, ftype, h, words)
  local what
  if ftype == RESULT then
    what = string.format("result msg=%d cluster %d of %d", h.msg, h.cluster, h.clusters)
  else
    what = string.format("%smsg=%d packet %d of %d", ftype == REPLY and "reply " or "", h.msg, h.index, h.packets)
  end
  return string.format("%s %s, %s", name, what, plural(words, "word"))
end

function pspin.dissector(tvb, pinfo, root)
  -- The example the UDP port names; none when Decode As put the dissector on another port.
  local example = pinfo.match_uint - UDP_PORT_BASE
  if not examples[example] then example = nil end
  local name = example and examples[example] or ("UDP port " .. pinfo.match_uint)
  local ftype = frame_type(example)
  local layout = layouts[ftype]
  pinfo.cols.protocol = "PsPIN example"
  local tree = root:add(pspin, tvb())
  if example then tree:add(f.example, example):set_generated() end
  tree:add(f.type, ftype):set_generated()
  local h = dissect_header(tvb, layout, tree)
  if tvb:len() < HEADER_BYTES then
    tree:add_proto_expert_info(ex.truncated, string.format(
      "%s truncated: %d of %d bytes", layout.name, tvb:len(), HEADER_BYTES))
    pinfo.cols.info = string.format("%s %s, header truncated", name, frame_types[ftype])
    return tvb:len()
  end
  tree:append_text(string.format(", %s, message %d", name, h.msg))
  check_header(h, ftype, tree)
  local words = dissect_data(tvb, ftype, example, name, tree)
  pinfo.cols.info = summary(name, ftype, h, words)
  return tvb:len()
end

local udp_port = DissectorTable.get("udp.port")
for e = 0, #examples do udp_port:add(UDP_PORT_BASE + e, pspin) end
