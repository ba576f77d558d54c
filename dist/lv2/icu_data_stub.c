// SPDX-License-Identifier: GPL-3.0-or-later
// An empty ICU common-data package, linked into bendsynth.so ahead of the static Swift
// runtime so that the linker never pulls in Foundation's own (lib_FoundationICU.a's
// icu_packaged_data.cpp.o: 34 MB of locale, collation and conversion tables, more than
// half of the plugin). The plugin formats numbers with String(format:) (C-locale printf
// in CoreFoundation) and uses no Locale, calendar, collation or converter; ICU, asked
// for an item of this package, answers U_MISSING_RESOURCE_ERROR. The Makefile passes
// the data's symbol name (icudtNN_dat, NN the ICU version the toolchain carries) as
// ICU_DATA_SYMBOL. The layout is ICU's (ucmndata.h): a 32-byte header — MappedData
// (headerSize, magic 0xda 0x27) and UDataInfo (size 20, little-endian, ASCII, 2-byte
// UChar, format "CmnD" version 1) padded to 32 — then a table of contents of 0 items.
#include <stdint.h>

#ifndef ICU_DATA_SYMBOL
#error "ICU_DATA_SYMBOL: the name of the toolchain's ICU data, e.g. icudt76_dat"
#endif

struct EmptyCommonData {
    uint16_t headerSize;
    uint8_t magic1, magic2;
    uint16_t infoSize, reservedWord;
    uint8_t isBigEndian, charsetFamily, sizeofUChar, reservedByte;
    uint8_t dataFormat[4], formatVersion[4], dataVersion[4];
    uint8_t padding[8];
    uint32_t count;
    uint32_t reserved[3];
};

__attribute__((aligned(16), used)) const struct EmptyCommonData ICU_DATA_SYMBOL = {
    32, 0xda, 0x27, 20, 0, 0, 0, 2, 0, {'C', 'm', 'n', 'D'}, {1, 0, 0, 0}, {0, 0, 0, 0}, {0}, 0, {0},
};
