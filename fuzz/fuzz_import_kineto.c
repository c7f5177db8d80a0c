/* A PyTorch profiler (Kineto) or Chrome trace, JSON or gzip of JSON, imported into
 * an in-memory recording and reported on (fuzz_import_format.h). */
#define FUZZ_IMPORT_FORMAT GW_IMPORT_KINETO
#include "fuzz_import_format.h"
