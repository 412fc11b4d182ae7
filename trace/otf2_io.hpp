// Reading and writing traces in OTF2 (the Open Trace Format 2 of Score-P, Vampir and Scalasca;
// Debian libotf2-trace-dev), so that a trace sonde writes opens in those tools and a trace they
// write, with its MPI events, replays in sonde.
#pragma once

#include <filesystem>

#include "trace/trace.hpp"

namespace sonde::trace {

// Writes `trace` as an OTF2 archive: <path> is the anchor file (t.otf2), its definitions and
// event files go beside it (t.def, t/<rank>.evt), as OTF2 lays them out. One location per rank
// (an MPI rank location group on one system-tree node per host), one region per MPI function
// (paradigm MPI) and per phase (paradigm user), Enter/Leave per call with its MPI events between,
// process time as a metric where the trace has it, `properties` as archive properties.
// The archive is written into a temporary folder beside <path> and moved in place once whole, so
// that an archive already there is replaced only by a complete one. An I/O Error names the path.
// The trace is checked first (check_trace). What a round trip keeps: everything but Call::event
// (the archive's own positions come back) and the fields an OTF2 event does not record (the
// request alone for isend_complete and irecv_request, no tag or request for a collective).
// Property names are lower-case letters, digits and '_' (OTF2's names are case-insensitive);
// a property whose value is "" is not kept (OTF2 removes such a property). An existing folder
// <path without .otf2> that holds anything but OTF2 files is never replaced.
void write_otf2(const Trace& trace, const std::filesystem::path& path);

// Reads an OTF2 archive (its anchor file). Regions of the MPI paradigm named MPI_* are calls;
// regions of other paradigms (user functions, phases) become phases when their role is
// OTF2_REGION_ROLE_PHASE or they come from sonde, and are computation otherwise. Throws an input
// Error naming the file and, where it can, the rank and event: a missing or truncated archive, an
// MPI event outside a call, a Leave without its Enter, an unknown communicator, a request
// completed that was never posted; then check_trace. A rank's start and end are the times of its
// first and last event; ranks are the MPI locations in MPI_COMM_WORLD order, and communicator 0
// is MPI_COMM_WORLD. In OTF2 3.0 "role PHASE" is the region flag OTF2_REGION_FLAG_PHASE (it has
// no such role; Score-P flags its phases so); a region is an MPI call where its paradigm is MPI
// or its name begins with "MPI_".
Trace read_otf2(const std::filesystem::path& path);

}  // namespace sonde::trace
