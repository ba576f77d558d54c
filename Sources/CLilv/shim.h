// SPDX-License-Identifier: GPL-3.0-or-later
// CLilv: liblilv (Debian's liblilv-dev), the LV2 host library jalv, Ardour and Carla use:
// the world of installed bundles, plugins, instances and their state. Test and bench
// support only (the LV2 test host, BendLV2Host); the plugin itself never links it.
#include <lilv/lilv.h>
