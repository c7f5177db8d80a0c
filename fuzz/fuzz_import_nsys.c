/* An Nsight Systems SQLite export: corrupt pages, missing tables, odd rows,
 * imported into an in-memory recording and reported on (fuzz_import_format.h). */
#define FUZZ_IMPORT_FORMAT GW_IMPORT_NSYS
#include "fuzz_import_format.h"
