// icrc_engine: the CRC-32 engine for the RoCEv2 invariant CRC (ICRC), streaming BYTES bytes per
// clock cycle. Its C++ twin is IcrcEngineModel (sc_model/net/icrc.*), which also builds the byte
// stream and mask a frame needs; rtl_bridge/icrc_rtl.* drives the Verilated model.
//
// The CRC is CRC-32 as Ethernet and zlib use it (reflected polynomial 0xEDB88320, initial value
// 0xFFFFFFFF, result inverted), over the bytes of a message in stream order.
//
// Parameter
//   BYTES      bytes per beat, any value >= 1 (tested: 1, 2, 4, 8, 16).
// Inputs (sampled at the rising edge of clk)
//   rst        synchronous, active high: the running CRC goes back to its initial value,
//              out_valid to 0 and out_crc to 0; a beat in the same cycle is ignored.
//   in_valid   a beat is present this cycle; without it the other inputs are ignored.
//   in_first   the beat starts a message: the CRC restarts from its initial value (discarding a
//              message in progress). The running CRC is also at its initial value after reset
//              and after every last beat, so in_first is only needed to abandon a message.
//   in_last    the beat ends the message.
//   in_data    the beat's bytes: byte i (the i-th in stream order) is in_data[8*i +: 8].
//   in_keep    byte i is part of the message when in_keep[i] is 1; bytes with in_keep[i] = 0 are
//              skipped wherever they are (normally only a last beat has them, at the top).
//   in_mask    byte i enters the CRC as 0xFF instead of its value when in_mask[i] is 1 (the
//              ICRC's variant fields); ignored where in_keep[i] is 0.
// Outputs (registered)
//   out_valid  1 for the one cycle after a beat with in_valid and in_last.
//   out_crc    the message's CRC, from that cycle until the next last beat (or reset). It is the
//              value whose little-endian bytes the packet carries as its ICRC: out_crc[7:0] is
//              the first ICRC byte on the wire.
// A new message may start in the cycle right after a last beat (back to back), and beats may be
// separated by idle cycles.
module icrc_engine #(
    parameter int BYTES = 8
) (
    input  logic               clk,
    input  logic               rst,
    input  logic               in_valid,
    input  logic               in_first,
    input  logic               in_last,
    input  logic [BYTES*8-1:0] in_data,
    input  logic [  BYTES-1:0] in_keep,
    input  logic [  BYTES-1:0] in_mask,
    output logic               out_valid,
    output logic [       31:0] out_crc
);
  localparam logic [31:0] Poly = 32'hEDB88320;
  localparam logic [31:0] Init = 32'hFFFFFFFF;

  // One byte into the (reflected, not inverted) CRC register, least significant bit first.
  function automatic logic [31:0] crc_byte(input logic [31:0] crc, input logic [7:0] b);
    logic [31:0] c;
    c = crc ^ {24'd0, b};
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (c[0] ? Poly : 32'd0);
    return c;
  endfunction

  logic [31:0] crc_q;  // the running CRC register between beats
  logic [31:0] crc_d;  // after this cycle's beat

  always_comb begin
    crc_d = in_first ? Init : crc_q;
    for (int i = 0; i < BYTES; i++) begin
      if (in_keep[i]) crc_d = crc_byte(crc_d, in_mask[i] ? 8'hFF : in_data[8*i+:8]);
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      crc_q     <= Init;
      out_valid <= 1'b0;
      out_crc   <= 32'd0;
    end else begin
      out_valid <= in_valid & in_last;
      if (in_valid) begin
        crc_q <= in_last ? Init : crc_d;
        if (in_last) out_crc <= ~crc_d;
      end
    end
  end
endmodule
