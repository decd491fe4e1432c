// Text and pcapng trace writers (see trace_writer.h).
#include "net/trace_writer.h"

#include "common/errors.h"
#include "common/interrupt.h"

namespace fs {

std::string format_picos_ns(Picos t) {
  std::string s = std::to_string(t / kPicosPerNs);
  const Picos frac = t % kPicosPerNs;
  if (frac != 0) {
    std::string f = std::to_string(frac);
    f.insert(0, 3 - f.size(), '0');
    while (f.back() == '0') f.pop_back();
    s += "." + f;
  }
  return s + "ns";
}

std::string to_hex(const uint8_t* data, size_t len) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(2 * len);
  for (size_t i = 0; i < len; ++i) {
    s += digits[data[i] >> 4];
    s += digits[data[i] & 15];
  }
  return s;
}

void write_text_trace(std::ostream& out, const std::vector<TraceRecord>& records) {
  for (size_t i = 1; i < records.size(); ++i)
    if (records[i].time < records[i - 1].time)
      throw SimError("write_text_trace: record " + std::to_string(i + 1) + " at " +
                     format_picos_ns(records[i].time) + " is before record " + std::to_string(i) +
                     " at " + format_picos_ns(records[i - 1].time));
  out << "# flaresim text trace: <time> <port> hex <frame bytes> (see traces/FORMAT.md)\n";
  for (size_t i = 0; i < records.size(); ++i) {
    if (i % 4096 == 0) check_interrupted("writing the trace");
    const TraceRecord& r = records[i];
    out << format_picos_ns(r.time) << ' ' << r.port << " hex " << to_hex(r.data.data(), r.data.size()) << '\n';
  }
}

namespace {

void put16(std::string& b, uint32_t v) {
  b += char(v & 0xFF);
  b += char((v >> 8) & 0xFF);
}
void put32(std::string& b, uint32_t v) {
  put16(b, v & 0xFFFF);
  put16(b, v >> 16);
}
void pad4(std::string& b) {
  while (b.size() % 4 != 0) b += '\0';
}
void put_option(std::string& b, uint16_t code, const std::string& value) {
  put16(b, code);
  put16(b, uint32_t(value.size()));
  b += value;
  pad4(b);
}

// Frames a block: type, total length, body (already padded), total length.
void emit_block(std::ostream& out, uint32_t type, const std::string& body) {
  std::string b;
  put32(b, type);
  put32(b, uint32_t(body.size() + 12));
  b += body;
  put32(b, uint32_t(body.size() + 12));
  out.write(b.data(), std::streamsize(b.size()));
}

}  // namespace

PcapngWriter::PcapngWriter(std::ostream& out, unsigned num_ports)
    : out_(out), num_ports_(num_ports) {
  if (num_ports < 1 || num_ports > 65536)
    throw SimError("PcapngWriter: num_ports " + std::to_string(num_ports) + " not in 1..65536");
  std::string shb;
  put32(shb, 0x1A2B3C4Du);  // byte-order magic
  put16(shb, 1);            // version 1.0
  put16(shb, 0);
  put32(shb, 0xFFFFFFFFu);  // section length: not given
  put32(shb, 0xFFFFFFFFu);
  put_option(shb, 4, "flaresim");  // shb_userappl
  put32(shb, 0);                   // opt_endofopt
  emit_block(out_, 0x0A0D0D0Au, shb);
  for (unsigned p = 0; p < num_ports; ++p) {
    std::string idb;
    put16(idb, 1);  // LINKTYPE_ETHERNET
    put16(idb, 0);
    put32(idb, 0);  // snaplen: no limit
    put_option(idb, 2, "port" + std::to_string(p));  // if_name
    put_option(idb, 9, std::string(1, char(12)));     // if_tsresol: 10^-12 s
    put32(idb, 0);
    emit_block(out_, 1, idb);
  }
}

void PcapngWriter::write(uint16_t port, Picos time, const uint8_t* data, size_t len) {
  if (port >= num_ports_)
    throw SimError("PcapngWriter: port " + std::to_string(port) + " >= num_ports " +
                   std::to_string(num_ports_));
  if (len > 0xFFFF0000u) throw SimError("PcapngWriter: packet too large");
  std::string epb;
  put32(epb, port);
  put32(epb, uint32_t(time >> 32));
  put32(epb, uint32_t(time & 0xFFFFFFFFu));
  put32(epb, uint32_t(len));
  put32(epb, uint32_t(len));
  epb.append(reinterpret_cast<const char*>(data), len);
  pad4(epb);
  emit_block(out_, 6, epb);
}

void write_pcapng(std::ostream& out, unsigned num_ports, const std::vector<TraceRecord>& records) {
  PcapngWriter w(out, num_ports);
  for (size_t i = 0; i < records.size(); ++i) {
    if (i % 4096 == 0) check_interrupted("writing the trace");
    w.write(records[i].port, records[i].time, records[i].data.data(), records[i].data.size());
  }
}

bool is_pcapng_path(const std::string& path) {
  return path.size() >= 7 && path.compare(path.size() - 7, 7, ".pcapng") == 0;
}

void write_trace(std::ostream& out, const std::string& path, unsigned num_ports, const std::vector<TraceRecord>& records) {
  if (is_pcapng_path(path))
    write_pcapng(out, num_ports, records);
  else
    write_text_trace(out, records);
}

}  // namespace fs
