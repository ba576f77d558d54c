// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef BENDSYNTH_BUILD_INFO_H
#define BENDSYNTH_BUILD_INFO_H

/// The version bendsynth was built as ("0.9.0+git1a2b3c4"), compiled in: the manifest
/// defines BENDSYNTH_VERSION from `make`'s VERSION_STRING (the VERSION file and `git
/// describe`), or from the VERSION file alone for a plain `swift build`. A C function,
/// not a Swift constant: SwiftPM passes a string to a build only as a C macro.
const char *bendsynth_build_version(void);

#endif
