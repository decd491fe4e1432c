-- Wireshark/tshark dissector for Canary packets (flaresim's canary protocol): the 19-byte header
-- of handlers/canary/canary_proto.h (Canary 4.1: destination, id, counter, hosts, children,
-- switch address, bypass and multicast bits) and the int32 elements after it, with expert info
-- where a receiver would refuse the packet.
--
--   tshark -X lua_script:scripts/wireshark/canary.lua -r capture.pcapng -V
--
-- flaresim carries Canary over UDP: the dissector is registered on UDP port 4952; for another
-- port, Decode As (tshark -d udp.port==N,canary).

local HEADER_BYTES = 19
local ELEMENT_BYTES = 4
local DEFAULT_UDP_PORT = 4952
local APP_BITS = 8
local FLAG_BYPASS = 0x80
local FLAG_MULTICAST = 0x40
local FLAG_PADDING = 0x3F

local canary = Proto("canary", "Canary in-network allreduce")

local f = {
  destination = ProtoField.ipv4("canary.destination", "Destination (leader)"),
  id = ProtoField.uint32("canary.id", "Id", base.HEX),
  app = ProtoField.uint32("canary.id.app", "Application", base.DEC),
  sequence = ProtoField.uint32("canary.id.sequence", "Sequence", base.DEC),
  counter = ProtoField.uint16("canary.counter", "Counter", base.DEC),
  hosts = ProtoField.uint16("canary.hosts", "Hosts", base.DEC),
  children = ProtoField.uint32("canary.children", "Children", base.DEC),
  switch = ProtoField.uint16("canary.switch", "Switch address", base.DEC),
  flags = ProtoField.uint8("canary.flags", "Flags", base.HEX),
  bypass = ProtoField.bool("canary.flags.bypass", "Bypass", 8, nil, FLAG_BYPASS),
  multicast = ProtoField.bool("canary.flags.multicast", "Multicast", 8, nil, FLAG_MULTICAST),
  padding = ProtoField.uint8("canary.flags.padding", "Padding", base.HEX, nil, FLAG_PADDING),
  data = ProtoField.bytes("canary.data", "Data"),
  element = ProtoField.int32("canary.element", "Element", base.DEC),
}
canary.fields = f

local ex = {
  truncated = ProtoExpert.new("canary.truncated", "Canary header truncated", expert.group.MALFORMED,
                              expert.severity.ERROR),
  bad_length = ProtoExpert.new("canary.bad_length", "Canary data is not whole int32 elements",
                               expert.group.MALFORMED, expert.severity.ERROR),
  padding = ProtoExpert.new("canary.padding", "Canary padding bits set", expert.group.MALFORMED,
                            expert.severity.ERROR),
}
canary.experts = ex

-- Bit `flag` (a power of two) of `byte`. (Lua 5.2: no bitwise operators.)
local function has_flag(byte, flag)
  return math.floor(byte / flag) % 2 == 1
end

function canary.dissector(tvb, pinfo, root)
  pinfo.cols.protocol = "Canary"
  local tree = root:add(canary, tvb())
  if tvb:len() < HEADER_BYTES then
    tree:add_proto_expert_info(ex.truncated, string.format("Canary header truncated: %d of %d bytes", tvb:len(),
                                                           HEADER_BYTES))
    pinfo.cols.info = "Canary, header truncated"
    return tvb:len()
  end
  tree:add(f.destination, tvb(0, 4))
  local id = tvb(4, 4):uint()
  local app, sequence = math.floor(id / 2 ^ (32 - APP_BITS)), id % 2 ^ (32 - APP_BITS)
  local id_item = tree:add(f.id, tvb(4, 4))
  id_item:add(f.app, tvb(4, 4), app)
  id_item:add(f.sequence, tvb(4, 4), sequence)
  local counter, hosts = tvb(8, 2):uint(), tvb(10, 2):uint()
  tree:add(f.counter, tvb(8, 2))
  tree:add(f.hosts, tvb(10, 2))
  tree:add(f.children, tvb(12, 4))
  tree:add(f.switch, tvb(16, 2))
  local byte = tvb(18, 1):uint()
  local bypass, multicast = has_flag(byte, FLAG_BYPASS), has_flag(byte, FLAG_MULTICAST)
  local names = {}
  if bypass then table.insert(names, "bypass") end
  if multicast then table.insert(names, "multicast") end
  local flags = tree:add(f.flags, tvb(18, 1))
  if #names > 0 then flags:append_text(" (" .. table.concat(names, ", ") .. ")") end
  flags:add(f.bypass, tvb(18, 1))
  flags:add(f.multicast, tvb(18, 1))
  flags:add(f.padding, tvb(18, 1))
  if byte % (FLAG_PADDING + 1) ~= 0 then
    flags:add_proto_expert_info(ex.padding, string.format("Padding bits 0x%02x set (they are 0)",
                                                          byte % (FLAG_PADDING + 1)))
  end
  local carried = tvb:len() - HEADER_BYTES
  local n = math.floor(carried / ELEMENT_BYTES)
  if carried > 0 then
    local data = tree:add(f.data, tvb(HEADER_BYTES, carried))
    data:set_text(string.format("Data: %d x int32", n))
    for i = 0, n - 1 do
      data:add_le(f.element, tvb(HEADER_BYTES + i * ELEMENT_BYTES, ELEMENT_BYTES)):prepend_text("[" .. i .. "] ")
    end
    if carried % ELEMENT_BYTES ~= 0 then
      data:add_proto_expert_info(ex.bad_length, string.format(
        "%d data bytes after the header: not whole 4-byte int32 elements", carried))
    end
  end
  tree:append_text(string.format(", app %d sequence %d", app, sequence))
  pinfo.cols.info = string.format("Canary app=%d seq=%d counter=%d/%d elements=%d%s%s", app, sequence, counter,
                                  hosts, n, bypass and " bypass" or "", multicast and " multicast" or "")
  return tvb:len()
end

DissectorTable.get("udp.port"):add(DEFAULT_UDP_PORT, canary)
