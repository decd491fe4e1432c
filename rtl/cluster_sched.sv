// Cluster scheduler of a PsPIN cluster: queues the tasks the global scheduler places on the
// cluster, one FIFO per subset of HPUs (one FIFO under fcfs, where the subset is the whole
// cluster), and hands the task at the head of a FIFO to a free HPU of its subset. Twin of
// ClusterSchedModel (sc_model/pspin/cluster_sched_core.*), the decision core of the SystemC
// cluster; both make the same decision in the same cycle.
//
// Each cycle the block takes at most one new task (push_valid, push_subset, push_tag: the
// caller's name for the task) and at most one HPU that finished (free_valid, free_hpu). Both
// count before the decision: a task pushed in a cycle can leave in that cycle, and so can an HPU
// freed in it take a task. The decision: the first subset (in index order) with a task waiting
// and a free HPU, and in it the lowest-numbered free HPU; at most one task leaves per cycle. It is
// registered: disp_* hold it for the cycle after the clock edge, and the HPU is busy from then
// until it is freed. A FIFO holds cfg_depth tasks: push_ready is low when the subset's FIFO is
// full (or the subset does not exist) and the task is not taken (back-pressure). Freeing an HPU
// that is not busy changes nothing. The FIFOs are read combinationally (a task can start in the
// cycle it is pushed), so they map to registers or LUT RAM, not to SRAM with a registered read
// port: 16 x 1024 x 16 bits per cluster at the simulator's parameters.
module cluster_sched #(
    parameter int MAX_HPUS = 16,    // the largest cfg_hpus (and number of subsets), >= 2
    parameter int DEPTH    = 1024,  // the largest cfg_depth; a power of two >= 2
    parameter int TAG_W    = 16
) (
    input  logic                     clk,
    input  logic                     rst,              // synchronous, active high
    input  logic [7:0]               cfg_hpus,         // HPUs in the cluster, 1 .. MAX_HPUS
    input  logic [7:0]               cfg_subset_size,  // HPUs per subset; divides cfg_hpus
    input  logic [$clog2(DEPTH):0]   cfg_depth,        // tasks a FIFO holds, 1 .. DEPTH
    input  logic                     push_valid,
    input  logic [7:0]               push_subset,
    input  logic [TAG_W-1:0]         push_tag,
    output logic                     push_ready,
    input  logic                     free_valid,
    input  logic [7:0]               free_hpu,
    output logic                     disp_valid,
    output logic [7:0]               disp_hpu,
    output logic [TAG_W-1:0]         disp_tag,
    output logic [MAX_HPUS-1:0]      busy               // HPUs running a task
);
  localparam int PTR_W = $clog2(DEPTH);
  localparam int HPU_W = $clog2(MAX_HPUS);

  logic [TAG_W-1:0] fifo  [MAX_HPUS][DEPTH];
  logic [PTR_W-1:0] head  [MAX_HPUS];
  logic [PTR_W-1:0] tail  [MAX_HPUS];
  logic [PTR_W:0]   count [MAX_HPUS];

  logic [7:0] subset_size, subsets;
  assign subset_size = cfg_subset_size == 8'd0 ? cfg_hpus : cfg_subset_size;
  assign subsets     = cfg_hpus / subset_size;

  // This cycle's push and free, before the decision.
  logic push_ok;
  assign push_ready = push_subset < subsets && push_subset < 8'(MAX_HPUS) &&
                      count[push_subset[HPU_W-1:0]] < cfg_depth;
  assign push_ok    = push_valid && push_ready;

  logic [MAX_HPUS-1:0] busy_now;
  always_comb begin
    busy_now = busy;
    if (free_valid && free_hpu < 8'(MAX_HPUS)) busy_now[free_hpu[HPU_W-1:0]] = 1'b0;
  end

  // The decision: first subset with a task and a free HPU, lowest free HPU in it.
  logic             pick_valid;
  logic [HPU_W-1:0] pick_subset, pick_hpu;
  always_comb begin
    logic waiting;
    pick_valid  = 1'b0;
    pick_subset = '0;
    pick_hpu    = '0;
    for (int q = 0; q < MAX_HPUS; q++) begin
      waiting = count[q] != '0 || (push_ok && int'(push_subset) == q);
      if (!pick_valid && q < int'(subsets) && waiting) begin
        for (int j = 0; j < MAX_HPUS; j++) begin
          if (!pick_valid && j < int'(subset_size) && q * int'(subset_size) + j < MAX_HPUS &&
              !busy_now[q * int'(subset_size) + j]) begin
            pick_valid  = 1'b1;
            pick_subset = HPU_W'(q);
            pick_hpu    = HPU_W'(q * int'(subset_size) + j);
          end
        end
      end
    end
  end

  // The task leaving: the FIFO's head, or the task pushed now if the FIFO is empty.
  logic [TAG_W-1:0] pick_tag;
  assign pick_tag = count[pick_subset] == '0 ? push_tag : fifo[pick_subset][head[pick_subset]];

  always_ff @(posedge clk) begin
    if (rst) begin
      for (int q = 0; q < MAX_HPUS; q++) begin
        head[q]  <= '0;
        tail[q]  <= '0;
        count[q] <= '0;
      end
      busy       <= '0;
      disp_valid <= 1'b0;
      disp_hpu   <= '0;
      disp_tag   <= '0;
    end else begin
      if (push_ok) begin
        fifo[push_subset[HPU_W-1:0]][tail[push_subset[HPU_W-1:0]]] <= push_tag;
        tail[push_subset[HPU_W-1:0]] <= tail[push_subset[HPU_W-1:0]] + 1'b1;
      end
      for (int q = 0; q < MAX_HPUS; q++) begin
        count[q] <= count[q] + ((push_ok && int'(push_subset) == q) ? (PTR_W+1)'(1) : '0) -
                    ((pick_valid && int'(pick_subset) == q) ? (PTR_W+1)'(1) : '0);
      end
      if (pick_valid) head[pick_subset] <= head[pick_subset] + 1'b1;
      busy       <= pick_valid ? busy_now | (MAX_HPUS'(1) << pick_hpu) : busy_now;
      disp_valid <= pick_valid;
      if (pick_valid) begin
        disp_hpu <= 8'(pick_hpu);
        disp_tag <= pick_tag;
      end
    end
  end
endmodule
