# SPDX-License-Identifier: GPL-3.0-or-later
# Writes the catalog JSON files into a C++ source as NUL-terminated byte
# arrays. Not string literals: models.json outgrew the 65,536 characters a
# literal may portably hold (clang's -Woverlength-strings under -Werror).
function(headroom_embed_bytes file name out)
    file(READ ${file} hex HEX)
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
    # unsigned: UTF-8 bytes above 0x7f (the seed book's Korean) would narrow into char.
    set(${out} "const unsigned char ${name}Data[] = {\n${bytes}0x00};\nconst char* const ${name} = reinterpret_cast<const char*>(${name}Data);\n" PARENT_SCOPE)
endfunction()

headroom_embed_bytes(${CATALOG_DIR}/models.json kModelsJson MODELS)
headroom_embed_bytes(${CATALOG_DIR}/gpus.json kGpusJson GPUS)
headroom_embed_bytes(${TEACHING_DIR}/seed-book-ch5.json kSeedBookJson SEED_BOOK)
file(WRITE ${OUTPUT}.tmp
"// Generated from resources/catalog and resources/teaching by engine/embedcatalog.cmake. Do not edit.\n"
"namespace headroom::catalogdata {\n"
"extern const char* const kModelsJson;\nextern const char* const kGpusJson;\nextern const char* const kSeedBookJson;\n"
"${MODELS}${GPUS}${SEED_BOOK}"
"}\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
