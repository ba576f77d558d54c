// SPDX-License-Identifier: GPL-3.0-or-later
// CFLAC: libFLAC's metadata interface (Debian's libflac-dev), for what libsndfile does not
// read of a FLAC file: the foreign RIFF chunks `flac --keep-foreign-metadata` keeps in
// APPLICATION blocks with the id "riff" (a WAV's `smpl`: its loops and root key).
#include <FLAC/metadata.h>
