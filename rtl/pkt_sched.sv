// Global packet scheduler of the PsPIN unit: picks the cluster (and, under hier-fcfs, the subset
// of HPUs) for each packet the parser matched. Twin of PktSchedModel (sc_model/cores/
// pkt_sched_core.*), the decision core of the SystemC packet scheduler; both make the same
// decision in the same cycle.
//
// Each cycle the block takes at most one finished task (done_valid, done_cluster) and at most one
// packet to place (req_valid, req_block). The finished task is counted first, so a packet placed
// in the same cycle sees its cluster one task emptier. The decision is registered: grant_* hold
// it for the cycle after the clock edge. cfg_policy selects:
//   0 fcfs:         the cluster with the fewest outstanding tasks; ties go to the first one in
//                   round-robin order from the cluster after the previous grant.
//   1 hier-fcfs:    every packet of a block goes to one subset of HPUs: subset s = block mod
//                   (clusters * subsets), cluster s mod clusters, subset index s / clusters.
//   2 home-cluster: PsPIN's policy (spcl/pspin hw/src/pkt_scheduler/scheduler.sv). A packet goes
//                   to its block's home cluster, block mod clusters, while that cluster holds
//                   fewer than cfg_home_max outstanding tasks; else to the least loaded cluster,
//                   the lowest index on ties. The block stands for PsPIN's message id, whose low
//                   bits name the home cluster.
//   3 flow:         every packet of a flow goes to one cluster: req_block carries the flow's hash
//                   (the switch's parser computes it, sc_model/net/flow_key.h), the cluster is
//                   req_block mod clusters, and a packet whose cluster holds cfg_home_max
//                   outstanding tasks is not placed (it waits: affinity is kept).
// A finished task on a cluster with none outstanding is ignored (the switch never sends one). A
// packet whose cluster is full is not placed: req_ready is low and the sender holds it
// (back-pressure). Full: the counter's maximum, or under home-cluster and flow cfg_home_max
// tasks (under home-cluster every cluster is then full, since the least loaded one is). The
// hier-fcfs subset and the home (flow) cluster take combinational 32-bit modulo and division by
// run-time values; a faster build would precompute them or restrict the sizes to powers of two
// (as PsPIN does: 4 clusters).
module pkt_sched #(
    parameter int MAX_CLUSTERS = 64,  // the largest cfg_clusters, 1 .. 64 (lint: BLKLOOPINIT above)
    parameter int COUNT_W      = 16   // outstanding tasks per cluster: 0 .. 2^COUNT_W - 1
) (
    input  logic               clk,
    input  logic               rst,           // synchronous, active high
    input  logic [7:0]         cfg_clusters,  // 1 .. MAX_CLUSTERS
    input  logic [1:0]         cfg_policy,    // 0: fcfs, 1: hier-fcfs, 2: home-cluster, 3: flow
    input  logic [7:0]         cfg_subsets,   // hier-fcfs: subsets per cluster, 1 .. 255
    input  logic [COUNT_W-1:0] cfg_home_max,  // home-cluster, flow: most outstanding tasks per cluster, >= 1
    input  logic               done_valid,
    input  logic [7:0]         done_cluster,
    input  logic               req_valid,
    input  logic [31:0]        req_block,     // the block id; under flow, the flow hash
    output logic               req_ready,     // the packet can be placed this cycle
    output logic               grant_valid,
    output logic [7:0]         grant_cluster,
    output logic [7:0]         grant_subset
);
  localparam logic [COUNT_W-1:0] COUNT_MAX = {COUNT_W{1'b1}};
  localparam int IDX_W = $clog2(MAX_CLUSTERS > 1 ? MAX_CLUSTERS : 2);  // index bits of the counters

  logic hier, home, flow;
  assign hier = cfg_policy == 2'd1;
  assign home = cfg_policy == 2'd2;
  assign flow = cfg_policy == 2'd3;

  logic [COUNT_W-1:0] outstanding [MAX_CLUSTERS];
  logic [7:0]         next_rr;

  // Counts after this cycle's finished task.
  logic [COUNT_W-1:0] counts [MAX_CLUSTERS];
  always_comb begin
    for (int c = 0; c < MAX_CLUSTERS; c++) begin
      counts[c] = outstanding[c];
      if (done_valid && int'(done_cluster) == c && outstanding[c] != '0) counts[c] = outstanding[c] - 1'b1;
    end
  end

  // fcfs: the least loaded cluster, scanning from next_rr.
  logic [7:0] fcfs_pick;
  always_comb begin
    logic [7:0] idx;
    fcfs_pick = next_rr;
    idx = next_rr;
    for (int i = 1; i < MAX_CLUSTERS; i++) begin
      if (i < int'(cfg_clusters)) begin
        idx = idx + 8'd1 == cfg_clusters ? 8'd0 : idx + 8'd1;
        if (counts[idx[IDX_W-1:0]] < counts[fcfs_pick[IDX_W-1:0]]) fcfs_pick = idx;
      end
    end
  end

  logic [31:0] clusters;  // cfg_clusters as a divisor (0 taken as 1)
  assign clusters = {24'd0, cfg_clusters == 8'd0 ? 8'd1 : cfg_clusters};

  // hier-fcfs: the block's subset.
  logic [7:0] hier_cluster, hier_subset;
  always_comb begin
    logic [31:0] subset_all;
    subset_all   = req_block % (clusters * {24'd0, cfg_subsets == 8'd0 ? 8'd1 : cfg_subsets});
    hier_cluster = 8'(subset_all % clusters);
    hier_subset  = 8'(subset_all / clusters);
  end

  // Outstanding tasks at which a cluster takes no more.
  logic [COUNT_W-1:0] limit;
  assign limit = home || flow ? cfg_home_max : COUNT_MAX;

  // home-cluster: the home cluster while it has room, else the least loaded (lowest index first).
  // flow: the home cluster, full or not.
  logic [7:0] home_cluster, least_loaded, home_pick;
  always_comb begin
    home_cluster = 8'(req_block % clusters);
    least_loaded = 8'd0;
    for (int c = 1; c < MAX_CLUSTERS; c++)
      if (c < int'(cfg_clusters) && counts[c] < counts[least_loaded[IDX_W-1:0]]) least_loaded = 8'(c);
    home_pick = counts[home_cluster[IDX_W-1:0]] < limit ? home_cluster : least_loaded;
  end

  logic [7:0] pick;
  assign pick      = hier ? hier_cluster : home ? home_pick : flow ? home_cluster : fcfs_pick;
  assign req_ready = counts[pick[IDX_W-1:0]] < limit;

  always_ff @(posedge clk) begin
    if (rst) begin
      for (int c = 0; c < MAX_CLUSTERS; c++) outstanding[c] <= '0;
      next_rr       <= '0;
      grant_valid   <= 1'b0;
      grant_cluster <= '0;
      grant_subset  <= '0;
    end else begin
      for (int c = 0; c < MAX_CLUSTERS; c++) begin
        if (req_valid && req_ready && int'(pick) == c) outstanding[c] <= counts[c] + 1'b1;
        else outstanding[c] <= counts[c];
      end
      grant_valid <= req_valid && req_ready;
      if (req_valid && req_ready) begin
        grant_cluster <= pick;
        grant_subset  <= hier ? hier_subset : 8'd0;
        if (!hier && !home && !flow) next_rr <= pick + 8'd1 == cfg_clusters ? 8'd0 : pick + 8'd1;
      end
    end
  end
endmodule
