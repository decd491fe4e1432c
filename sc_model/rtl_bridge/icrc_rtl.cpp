// The simulator's Verilated ICRC engine, 8 bytes per cycle (see icrc_rtl.h).
#include "rtl_bridge/icrc_rtl.h"

#include <Vicrc_engine.h>


namespace fs {

IcrcRtl::IcrcRtl(RtlContext& rtl, const std::string& name)
    : core_(std::make_unique<IcrcRtlOf<Vicrc_engine, 8>>(rtl, name)) {}

IcrcRtl::~IcrcRtl() = default;

}  // namespace fs
