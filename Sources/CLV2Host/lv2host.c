// SPDX-License-Identifier: GPL-3.0-or-later
// The host side of LV2 features for the test host and the benches (see CLV2Host.h).
// Specs relied on: urid.h (map: the same URI always the same id, never 0), log.h
// (printf/vprintf), worker.h (schedule_work may be called from run(); the host runs
// work() elsewhere, then work_response() and end_run() in the audio context after
// run()), state.h (makePath: a path under the host's folder, its parent made; freePath),
// options.h and buf-size.h (maxBlockLength, minBlockLength as atom:Int options).
#define _GNU_SOURCE
#include "CLV2Host.h"
#include <lv2/atom/atom.h>
#include <lv2/buf-size/buf-size.h>
#include <lv2/log/log.h>
#include <lv2/options/options.h>
#include <lv2/state/state.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define QUEUE_BYTES (1 << 20)

typedef struct {
    uint8_t data[QUEUE_BYTES];
    size_t used;
} Queue;

struct LV2HostFeatures {
    pthread_mutex_t lock;  // the URID table and the log
    char **uris;
    size_t uri_count, uri_capacity;
    char *log;
    size_t log_used, log_capacity;
    char *state_dir;

    LV2_URID_Map map;
    LV2_URID_Unmap unmap;
    LV2_Log_Log log_feature;
    LV2_Worker_Schedule schedule;
    LV2_State_Make_Path make_path;
    LV2_State_Free_Path free_path;
    LV2_Options_Option options[3];
    int32_t min_block, max_block;
    LV2_Feature features[9];
    const LV2_Feature *list[10];

    const LV2_Worker_Interface *worker;
    LV2_Handle instance;
    Queue requests, responses;
    // A queue's items are copied here before they are handed on (see drain): no
    // allocation while responses go to the plugin's audio-thread work_response.
    uint8_t copy[QUEUE_BYTES];
    uint64_t scheduled, refused;
    LV2_URID error_type;
    _Atomic uint64_t make_path_calls;
};

static LV2_URID map_uri(LV2_URID_Map_Handle handle, const char *uri) {
    LV2HostFeatures *h = handle;
    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; i < h->uri_count; i++) {
        if (strcmp(h->uris[i], uri) == 0) { pthread_mutex_unlock(&h->lock); return (LV2_URID)(i + 1); }
    }
    if (h->uri_count == h->uri_capacity) {
        h->uri_capacity = h->uri_capacity ? 2 * h->uri_capacity : 256;
        h->uris = realloc(h->uris, h->uri_capacity * sizeof(char *));
    }
    h->uris[h->uri_count++] = strdup(uri);
    LV2_URID id = (LV2_URID)h->uri_count;
    pthread_mutex_unlock(&h->lock);
    return id;
}

static const char *unmap_urid(LV2_URID_Unmap_Handle handle, LV2_URID urid) {
    LV2HostFeatures *h = handle;
    pthread_mutex_lock(&h->lock);
    const char *uri = urid >= 1 && urid <= h->uri_count ? h->uris[urid - 1] : NULL;
    pthread_mutex_unlock(&h->lock);
    return uri;
}

static int log_vprintf(LV2_Log_Handle handle, LV2_URID type, const char *fmt, va_list ap) {
    LV2HostFeatures *h = handle;
    char *line = NULL;
    int n = vasprintf(&line, fmt, ap);
    if (n < 0) return n;
    // Each line is kept with its type's id in front ("<id> text"), so lv2host_log_text
    // can pick one type.
    char prefix[16];
    int p = snprintf(prefix, sizeof prefix, "%u ", type);
    pthread_mutex_lock(&h->lock);
    size_t need = h->log_used + (size_t)p + (size_t)n + 2;
    if (need > h->log_capacity) {
        h->log_capacity = need * 2;
        h->log = realloc(h->log, h->log_capacity);
    }
    memcpy(h->log + h->log_used, prefix, (size_t)p);
    memcpy(h->log + h->log_used + p, line, (size_t)n);
    h->log_used += (size_t)p + (size_t)n;
    if (n == 0 || line[n - 1] != '\n') h->log[h->log_used++] = '\n';
    h->log[h->log_used] = 0;
    pthread_mutex_unlock(&h->lock);
    free(line);
    return n;
}

static int log_printf(LV2_Log_Handle handle, LV2_URID type, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = log_vprintf(handle, type, fmt, ap);
    va_end(ap);
    return n;
}

// A request or response: its size, then its bytes, padded to 8.
static int enqueue(Queue *q, uint32_t size, const void *data) {
    size_t total = 8 + ((size + 7u) & ~7u);
    if (q->used + total > QUEUE_BYTES) return 0;
    memcpy(q->data + q->used, &size, 4);
    memcpy(q->data + q->used + 8, data, size);
    q->used += total;
    return 1;
}

static LV2_Worker_Status schedule_work(LV2_Worker_Schedule_Handle handle, uint32_t size, const void *data) {
    LV2HostFeatures *h = handle;
    h->scheduled++;
    if (!enqueue(&h->requests, size, data)) { h->refused++; return LV2_WORKER_ERR_NO_SPACE; }
    return LV2_WORKER_SUCCESS;
}

static LV2_Worker_Status respond(LV2_Worker_Respond_Handle handle, uint32_t size, const void *data) {
    LV2HostFeatures *h = handle;
    return enqueue(&h->responses, size, data) ? LV2_WORKER_SUCCESS : LV2_WORKER_ERR_NO_SPACE;
}

static int make_folders(char *path) {
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = 0;
        int rc = mkdir(path, 0700);
        *p = '/';
        if (rc != 0 && errno != EEXIST) return -1;
    }
    return 0;
}

static char *make_path(LV2_State_Make_Path_Handle handle, const char *path) {
    LV2HostFeatures *h = handle;
    h->make_path_calls++;
    char *full = NULL;
    if (asprintf(&full, "%s/%s", h->state_dir, path) < 0) return NULL;
    make_folders(full);
    return full;
}

static void free_path(LV2_State_Free_Path_Handle handle, char *path) {
    (void)handle;
    free(path);
}

LV2HostFeatures *lv2host_new(const char *state_dir, int32_t min_block, int32_t max_block, int with_worker, int block_options) {
    LV2HostFeatures *h = calloc(1, sizeof *h);
    pthread_mutex_init(&h->lock, NULL);
    h->state_dir = strdup(state_dir);
    h->map = (LV2_URID_Map){ h, map_uri };
    h->unmap = (LV2_URID_Unmap){ h, unmap_urid };
    h->log_feature = (LV2_Log_Log){ h, log_printf, log_vprintf };
    h->schedule = (LV2_Worker_Schedule){ h, schedule_work };
    h->make_path = (LV2_State_Make_Path){ h, make_path };
    h->free_path = (LV2_State_Free_Path){ h, free_path };
    h->min_block = min_block;
    h->max_block = max_block;
    LV2_URID atom_int = map_uri(h, LV2_ATOM__Int);
    h->options[0] = (LV2_Options_Option){ LV2_OPTIONS_INSTANCE, 0, map_uri(h, LV2_BUF_SIZE__minBlockLength), sizeof(int32_t), atom_int, &h->min_block };
    h->options[1] = (LV2_Options_Option){ LV2_OPTIONS_INSTANCE, 0, map_uri(h, LV2_BUF_SIZE__maxBlockLength), sizeof(int32_t), atom_int, &h->max_block };
    h->options[2] = (LV2_Options_Option){ LV2_OPTIONS_INSTANCE, 0, 0, 0, 0, NULL };
    h->error_type = map_uri(h, LV2_LOG__Error);
    int n = 0;
    h->features[n++] = (LV2_Feature){ LV2_URID__map, &h->map };
    h->features[n++] = (LV2_Feature){ LV2_URID__unmap, &h->unmap };
    h->features[n++] = (LV2_Feature){ LV2_LOG__log, &h->log_feature };
    if (with_worker) h->features[n++] = (LV2_Feature){ LV2_WORKER__schedule, &h->schedule };
    h->features[n++] = (LV2_Feature){ LV2_STATE__makePath, &h->make_path };
    h->features[n++] = (LV2_Feature){ LV2_STATE__freePath, &h->free_path };
    if (block_options) {
        h->features[n++] = (LV2_Feature){ LV2_OPTIONS__options, h->options };
        h->features[n++] = (LV2_Feature){ LV2_BUF_SIZE__boundedBlockLength, NULL };
    }
    for (int i = 0; i < n; i++) h->list[i] = &h->features[i];
    h->list[n] = NULL;
    return h;
}

void lv2host_withhold_make_path(LV2HostFeatures *h) {
    int n = 0;
    for (int i = 0; h->list[i]; i++)
        if (h->list[i]->data != &h->make_path) h->list[n++] = h->list[i];
    h->list[n] = NULL;
}

uint64_t lv2host_make_path_calls(LV2HostFeatures *h) { return h->make_path_calls; }

void lv2host_free(LV2HostFeatures *h) {
    for (size_t i = 0; i < h->uri_count; i++) free(h->uris[i]);
    free(h->uris);
    free(h->log);
    free(h->state_dir);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

const LV2_Feature *const *lv2host_features(LV2HostFeatures *h) { return h->list; }
LV2_URID_Map *lv2host_map(LV2HostFeatures *h) { return &h->map; }
LV2_URID_Unmap *lv2host_unmap(LV2HostFeatures *h) { return &h->unmap; }
LV2_URID lv2host_urid(LV2HostFeatures *h, const char *uri) { return map_uri(h, uri); }

char *lv2host_log_text(LV2HostFeatures *h, LV2_URID type) {
    pthread_mutex_lock(&h->lock);
    char *out = malloc(h->log_used + 1);
    size_t o = 0;
    for (size_t i = 0; i < h->log_used;) {
        char *end = memchr(h->log + i, '\n', h->log_used - i);
        size_t len = end ? (size_t)(end - (h->log + i)) + 1 : h->log_used - i;
        char *space = memchr(h->log + i, ' ', len);
        unsigned t = (unsigned)strtoul(h->log + i, NULL, 10);
        if (space && (type == 0 || t == type)) {
            size_t text = len - (size_t)(space + 1 - (h->log + i));
            memcpy(out + o, space + 1, text);
            o += text;
        }
        i += len;
    }
    out[o] = 0;
    pthread_mutex_unlock(&h->lock);
    return out;
}

void lv2host_log_clear(LV2HostFeatures *h) {
    pthread_mutex_lock(&h->lock);
    h->log_used = 0;
    pthread_mutex_unlock(&h->lock);
}

void lv2host_set_worker(LV2HostFeatures *h, const LV2_Worker_Interface *iface, LV2_Handle instance) {
    h->worker = iface;
    h->instance = instance;
}

// Takes the queue's items in order, calling `f` on each.
static void drain(Queue *q, void (*f)(LV2HostFeatures *, uint32_t, const void *), LV2HostFeatures *h) {
    // Copied first: work() may schedule more (a plugin freeing the old sample does), and
    // work_response may schedule requests. Never nested: one copy buffer.
    size_t used = q->used;
    memcpy(h->copy, q->data, used);
    q->used = 0;
    for (size_t at = 0; at < used;) {
        uint32_t size;
        memcpy(&size, h->copy + at, 4);
        f(h, size, h->copy + at + 8);
        at += 8 + ((size + 7u) & ~7u);
    }
}

static void do_work(LV2HostFeatures *h, uint32_t size, const void *data) {
    if (h->worker && h->worker->work) h->worker->work(h->instance, respond, h, size, data);
}

static void do_response(LV2HostFeatures *h, uint32_t size, const void *data) {
    if (h->worker && h->worker->work_response) h->worker->work_response(h->instance, size, data);
}

int lv2host_run_requests(LV2HostFeatures *h) {
    if (h->requests.used == 0) return 0;
    drain(&h->requests, do_work, h);
    return 1;
}

void lv2host_run_responses(LV2HostFeatures *h) {
    drain(&h->responses, do_response, h);
    if (h->worker && h->worker->end_run) h->worker->end_run(h->instance);
}

int lv2host_work_pending(LV2HostFeatures *h) { return h->requests.used > 0 || h->responses.used > 0; }

uint64_t lv2host_work_scheduled(LV2HostFeatures *h) { return h->scheduled; }
uint64_t lv2host_work_refused(LV2HostFeatures *h) { return h->refused; }
