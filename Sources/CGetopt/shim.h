// SPDX-License-Identifier: GPL-3.0-or-later
// CGetopt: glibc's getopt_long, which the Glibc Swift module does not bring in.
#include <getopt.h>

// getopt's state lives in C globals (optind, optarg, optopt, opterr), which Swift 6
// refuses to touch directly as shared mutable state; these accessors replace them.
static inline int cgetopt_optind(void) { return optind; }
static inline void cgetopt_set_optind(int i) { optind = i; }
static inline void cgetopt_set_opterr(int e) { opterr = e; }
static inline const char *cgetopt_optarg(void) { return optarg; }
static inline int cgetopt_optopt(void) { return optopt; }
