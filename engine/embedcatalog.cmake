# SPDX-License-Identifier: GPL-3.0-or-later
# Writes the catalog JSON files into a C++ source as raw string literals.
file(READ ${CATALOG_DIR}/models.json MODELS_JSON)
file(READ ${CATALOG_DIR}/gpus.json GPUS_JSON)
file(READ ${TEACHING_DIR}/seed-book-ch5.json SEED_BOOK_JSON)
file(WRITE ${OUTPUT}.tmp
"// Generated from resources/catalog and resources/teaching by engine/embedcatalog.cmake. Do not edit.\n"
"namespace headroom::catalogdata {\n"
"extern const char* const kModelsJson;\nextern const char* const kGpusJson;\nextern const char* const kSeedBookJson;\n"
"const char* const kModelsJson = R\"hrjson(${MODELS_JSON})hrjson\";\n"
"const char* const kGpusJson = R\"hrjson(${GPUS_JSON})hrjson\";\n"
"const char* const kSeedBookJson = R\"hrjson(${SEED_BOOK_JSON})hrjson\";\n"
"}\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
