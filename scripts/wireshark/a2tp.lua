-- Wireshark/tshark dissector for flaresim's a2tp protocol (ATP and A2TP gradients and results):
-- the header of handlers/a2tp/a2tp_proto.h (job, worker, fan-in, sequence, aggregator, the
-- RESULT, COLLISION, COL, RESEND, ECE, MOVE and SUM flags, the bitmap of workers summed in, the
-- value count, the aggregator a MOVE result moves its fragment's table entry to; 22 bytes, and
-- in a job of more than 32 workers the bitmap's further words after them, each an a2tp.bitmap
-- field of its own, workers 0-31 first) and the int32
-- values after it, with expert info wherever a receiver
-- (sc_model/protocols/a2tp/a2tp_frame.cpp) would refuse the packet.Each expert item hangs
-- under the field it is about (their names are a2tp.expert.*, apart from the fields').
--
--   tshark -X lua_script:scripts/wireshark/a2tp.lua -r capture.pcapng -V
--
-- Registered on UDP port 4960; for another port, Decode As (tshark -d udp.port==N,a2tp).

local HEADER_BYTES = 22
local VALUE_BYTES = 4
local DEFAULT_UDP_PORT = 4960
local MAX_WORKERS = 128
local FLAG_RESULT = 0x80
local FLAG_COLLISION = 0x40
local FLAG_COL = 0x20
local FLAG_RESEND = 0x10
local FLAG_ECE = 0x08
local FLAG_MOVE = 0x04
local FLAG_SUM = 0x02
local FLAG_PADDING = 0x01

local a2tp = Proto("a2tp", "ATP/A2TP in-network aggregation")

local f = {
  job = ProtoField.uint32("a2tp.job", "Job", base.DEC),
  worker = ProtoField.uint8("a2tp.worker", "Worker", base.DEC),
  workers = ProtoField.uint8("a2tp.workers", "Workers (fan-in)", base.DEC),
  sequence = ProtoField.uint32("a2tp.sequence", "Sequence", base.DEC),
  aggregator = ProtoField.uint16("a2tp.aggregator", "Aggregator", base.DEC),
  flags = ProtoField.uint8("a2tp.flags", "Flags", base.HEX),
  result = ProtoField.bool("a2tp.flags.result", "Result", 8, nil, FLAG_RESULT),
  collision = ProtoField.bool("a2tp.flags.collision", "Collision", 8, nil, FLAG_COLLISION),
  col = ProtoField.bool("a2tp.flags.col", "Col (its aggregator saw a collision)", 8, nil, FLAG_COL),
  resend = ProtoField.bool("a2tp.flags.resend", "Resend (straight to the PS)", 8, nil, FLAG_RESEND),
  ece = ProtoField.bool("a2tp.flags.ece", "ECE (a summed gradient was CE-marked)", 8, nil, FLAG_ECE),
  move = ProtoField.bool("a2tp.flags.move", "Move (the fragment's table entry moves to next)", 8, nil, FLAG_MOVE),
  sum = ProtoField.bool("a2tp.flags.sum", "Sum (a switch's sum of the bitmap's workers)", 8, nil, FLAG_SUM),
  padding = ProtoField.uint8("a2tp.flags.padding", "Padding", base.HEX, nil, FLAG_PADDING),
  reserved = ProtoField.bytes("a2tp.reserved", "Reserved"),
  bitmap = ProtoField.uint32("a2tp.bitmap", "Bitmap", base.HEX),
  elements = ProtoField.uint16("a2tp.elements", "Values", base.DEC),
  next = ProtoField.uint16("a2tp.next", "Next aggregator", base.DEC),
  data = ProtoField.bytes("a2tp.data", "Data"),
  value = ProtoField.int32("a2tp.value", "Value", base.DEC),
}
a2tp.fields = f

local function malformed(name, text)
  return ProtoExpert.new("a2tp.expert." .. name, text, expert.group.MALFORMED, expert.severity.ERROR)
end
local ex = {
  truncated = malformed("truncated", "a2tp header truncated"),
  bad_length = malformed("bad_length", "a2tp value bytes disagree with the count"),
  reserved = malformed("reserved", "a2tp reserved bytes set"),
  padding = malformed("padding", "a2tp padding bits set"),
  fan_in = malformed("fan_in", "a2tp fan-in out of range"),
  worker = malformed("worker", "a2tp worker outside its job"),
  bitmap = malformed("bitmap", "a2tp bitmap names workers it cannot"),
  flags = malformed("flags", "a2tp flags of the other kind of packet"),
  next = malformed("next", "a2tp next aggregator without MOVE"),
}
a2tp.experts = ex

-- Bit `flag` (a power of two) of `byte`. (Lua 5.2: no bitwise operators.)
local function has_flag(byte, flag)
  return math.floor(byte / flag) % 2 == 1
end

-- The bitmap's 32-bit words in a job of `workers` workers (a fan-in out of range: the fixed one).
local function bitmap_words(workers)
  if workers == 0 or workers > MAX_WORKERS then return 1 end
  return math.ceil(workers / 32)
end

-- Bitmaps as lists of words, words[1] holding workers 0-31.
local function bitmap_has(words, w)
  return has_flag(words[math.floor(w / 32) + 1] or 0, 2 ^ (w % 32))
end
local function bitmap_beyond(words, workers)
  for k, word in ipairs(words) do
    local below = math.max(0, math.min(32, workers - 32 * (k - 1)))
    if word >= 2 ^ below then return true end
  end
  return false
end
local function bitmap_only(words, w)
  for k, word in ipairs(words) do
    if word ~= (k == math.floor(w / 32) + 1 and 2 ^ (w % 32) or 0) then return false end
  end
  return true
end
local function bitmap_empty(words)
  for _, word in ipairs(words) do
    if word ~= 0 then return false end
  end
  return true
end
-- Hex, the highest word first, 8 digits a word ("0x%x" of the value in the Info column: `short`).
local function bitmap_text(words, short)
  local text = {}
  for k = #words, 1, -1 do
    table.insert(text, string.format((short and k == #words) and "%x" or "%08x", words[k]))
  end
  return "0x" .. table.concat(text)
end

function a2tp.dissector(tvb, pinfo, root)
  pinfo.cols.protocol = "a2tp"
  local tree = root:add(a2tp, tvb())
  if tvb:len() < HEADER_BYTES then
    tree:add_proto_expert_info(ex.truncated, string.format("a2tp header truncated: %d of %d bytes", tvb:len(),
                                                           HEADER_BYTES))
    pinfo.cols.info = "a2tp, header truncated"
    return tvb:len()
  end
  local job, sequence, aggregator = tvb(0, 4):uint(), tvb(4, 4):uint(), tvb(8, 2):uint()
  local byte, worker = tvb(10, 1):uint(), tvb(11, 1):uint()
  local count, workers, next = tvb(16, 2):uint(), tvb(18, 1):uint(), tvb(20, 2):uint()
  local header_bytes = HEADER_BYTES + 4 * (bitmap_words(workers) - 1)
  if tvb:len() < header_bytes then
    tree:add_proto_expert_info(ex.truncated, string.format("a2tp header truncated: %d of %d bytes (a fan-in of %d)",
                                                           tvb:len(), header_bytes, workers))
    pinfo.cols.info = "a2tp, header truncated"
    return tvb:len()
  end
  local bitmap = {tvb(12, 4):uint()}
  for k = 2, bitmap_words(workers) do table.insert(bitmap, tvb(HEADER_BYTES + 4 * (k - 2), 4):uint()) end
  tree:add(f.job, tvb(0, 4))
  tree:add(f.sequence, tvb(4, 4))
  tree:add(f.aggregator, tvb(8, 2))
  local is_result = has_flag(byte, FLAG_RESULT)
  local names = {}
  for _, flag in ipairs({{FLAG_RESULT, "result"}, {FLAG_COLLISION, "collision"}, {FLAG_COL, "col"},
                         {FLAG_RESEND, "resend"}, {FLAG_ECE, "ece"}, {FLAG_MOVE, "move"},
                         {FLAG_SUM, "sum"}}) do
    if has_flag(byte, flag[1]) then table.insert(names, flag[2]) end
  end
  local flags = tree:add(f.flags, tvb(10, 1))
  if #names > 0 then flags:append_text(" (" .. table.concat(names, ", ") .. ")") end
  for _, field in ipairs({f.result, f.collision, f.col, f.resend, f.ece, f.move, f.sum, f.padding}) do
    flags:add(field, tvb(10, 1))
  end
  if byte % (FLAG_PADDING + 1) ~= 0 then
    flags:add_proto_expert_info(ex.padding, string.format("Padding bits 0x%02x set (they are 0)",
                                                          byte % (FLAG_PADDING + 1)))
  end
  local is_sum = not is_result and has_flag(byte, FLAG_SUM)
  if is_result and (has_flag(byte, FLAG_COLLISION) or has_flag(byte, FLAG_RESEND) or has_flag(byte, FLAG_SUM)) then
    flags:add_proto_expert_info(ex.flags, "A result flagged COLLISION, RESEND or SUM (gradients' flags)")
  elseif not is_result and (has_flag(byte, FLAG_MOVE) or
                            (not is_sum and (has_flag(byte, FLAG_COL) or has_flag(byte, FLAG_ECE)))) then
    flags:add_proto_expert_info(ex.flags, "A gradient flagged MOVE, or COL or ECE without SUM (results' flags)")
  end
  local worker_item = tree:add(f.worker, tvb(11, 1))
  local bitmap_item = tree:add(f.bitmap, tvb(12, 4))
  for k = 2, #bitmap do
    tree:add(f.bitmap, tvb(HEADER_BYTES + 4 * (k - 2), 4)):append_text(string.format(" (workers %d-%d)", 32 * (k - 1),
                                                                                     32 * k - 1))
  end
  tree:add(f.elements, tvb(16, 2))
  local workers_item = tree:add(f.workers, tvb(18, 1))
  if tvb(19, 1):uint() ~= 0 then
    tree:add(f.reserved, tvb(19, 1)):add_proto_expert_info(ex.reserved, "Reserved byte 19 is not 0")
  end
  local next_item = tree:add(f.next, tvb(20, 2))
  if next ~= 0 and not has_flag(byte, FLAG_MOVE) then
    next_item:add_proto_expert_info(ex.next, string.format("Next aggregator %d in a packet not flagged MOVE", next))
  end
  if workers == 0 or workers > MAX_WORKERS then
    workers_item:add_proto_expert_info(ex.fan_in, string.format("A fan-in of %d workers (1 to %d)", workers,
                                                                MAX_WORKERS))
  elseif worker >= workers then
    worker_item:add_proto_expert_info(ex.worker, string.format("Worker %d of a job of %d workers", worker, workers))
  elseif bitmap_beyond(bitmap, workers) then
    bitmap_item:add_proto_expert_info(ex.bitmap, string.format("Bitmap %s names workers beyond the job's %d",
                                                               bitmap_text(bitmap), workers))
  elseif is_sum and not bitmap_has(bitmap, worker) then
    bitmap_item:add_proto_expert_info(ex.bitmap, string.format("A sum of bitmap %s without its worker %d",
                                                               bitmap_text(bitmap), worker))
  elseif not is_result and not is_sum and not bitmap_only(bitmap, worker) then
    bitmap_item:add_proto_expert_info(ex.bitmap, string.format("A gradient of worker %d with bitmap %s", worker,
                                                               bitmap_text(bitmap)))
  elseif is_result and bitmap_empty(bitmap) then
    bitmap_item:add_proto_expert_info(ex.bitmap, "A result with an empty bitmap")
  end
  local carried = tvb:len() - header_bytes
  local n = math.floor(carried / VALUE_BYTES)
  if carried > 0 then
    local data = tree:add(f.data, tvb(header_bytes, carried))
    data:set_text(string.format("Data: %d x int32", n))
    for i = 0, n - 1 do
      data:add_le(f.value, tvb(header_bytes + i * VALUE_BYTES, VALUE_BYTES)):prepend_text("[" .. i .. "] ")
    end
  end
  if carried ~= count * VALUE_BYTES then
    tree:add_proto_expert_info(ex.bad_length, string.format(
      "%d bytes of values where the header says %d int32 values", carried, count))
  end
  local kind = is_result and "result" or "gradient"
  tree:append_text(string.format(", job %d sequence %d, %s", job, sequence, kind))
  local extra = {}
  for _, name in ipairs(names) do
    if name ~= "result" then table.insert(extra, " " .. name) end
  end
  pinfo.cols.info = string.format("a2tp %s job=%d seq=%d agg=%d worker=%d/%d bitmap=%s values=%d%s", kind, job,
                                  sequence, aggregator, worker, workers, bitmap_text(bitmap, true), count,
                                  table.concat(extra))
  return tvb:len()
end

DissectorTable.get("udp.port"):add(DEFAULT_UDP_PORT, a2tp)
