// SPDX-License-Identifier: GPL-3.0-or-later
// Test and bench support: the host side of the LV2 features a plugin asks for, in C
// because log:log's printf is variadic (a function Swift cannot define). BendLV2Host
// drives liblilv with them. One host per plugin instance; not thread-safe except where
// a function says so.
#pragma once
#include <lv2/core/lv2.h>
#include <lv2/urid/urid.h>
#include <lv2/worker/worker.h>
#include <stdint.h>

typedef struct LV2HostFeatures LV2HostFeatures;

/// The features: urid:map and urid:unmap, log:log (lines kept, `lv2host_log_text`),
/// work:schedule (when `with_worker`; requests queued in a fixed buffer, no allocation
/// in run(), run by `lv2host_run_requests` and `lv2host_run_responses`), state:makePath and state:freePath (files under
/// `state_dir`, made with their folders), options:options (bufsz:maxBlockLength and
/// minBlockLength, atom:Int) and bufsz:boundedBlockLength — those two only when
/// `block_options` (0: a host that promises no block length).
LV2HostFeatures *lv2host_new(const char *state_dir, int32_t min_block, int32_t max_block, int with_worker, int block_options);
void lv2host_free(LV2HostFeatures *host);
/// Leaves state:makePath out of the feature list (a host without it), before instantiate.
void lv2host_withhold_make_path(LV2HostFeatures *host);
/// How often the plugin asked state:makePath for a path so far. Thread-safe.
uint64_t lv2host_make_path_calls(LV2HostFeatures *host);
/// The NULL-terminated feature list for instantiate (and state restore).
const LV2_Feature *const *lv2host_features(LV2HostFeatures *host);
LV2_URID_Map *lv2host_map(LV2HostFeatures *host);
LV2_URID_Unmap *lv2host_unmap(LV2HostFeatures *host);
/// The id of `uri` (mapped if new). Thread-safe.
LV2_URID lv2host_urid(LV2HostFeatures *host, const char *uri);
/// Every log line so far, each ending in "\n", in one malloc'd string the caller frees;
/// `type` lines only (a log:Error, …), or all when `type` is 0. Thread-safe.
char *lv2host_log_text(LV2HostFeatures *host, LV2_URID type);
/// Forgets the log lines.
void lv2host_log_clear(LV2HostFeatures *host);
/// The plugin's worker interface (its extension_data) and instance, after instantiate.
void lv2host_set_worker(LV2HostFeatures *host, const LV2_Worker_Interface *iface, LV2_Handle instance);
/// What a host does after run(), in two halves, while work is pending: the queued
/// requests' work() (on this thread, as a host's worker thread would; returns 1 when there
/// were any), then the responses' work_response() and end_run() (the audio thread's part:
/// allocates nothing). (`LV2PluginHost.runWork` loops over them.)
int lv2host_run_requests(LV2HostFeatures *host);
void lv2host_run_responses(LV2HostFeatures *host);
int lv2host_work_pending(LV2HostFeatures *host);
/// Requests scheduled so far, and those refused because the queue was full.
uint64_t lv2host_work_scheduled(LV2HostFeatures *host);
uint64_t lv2host_work_refused(LV2HostFeatures *host);
