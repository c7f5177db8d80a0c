/* An nvidia-smi dmon or --query-gpu CSV log, imported into an in-memory
 * recording and reported on (fuzz_import_format.h). */
#define FUZZ_IMPORT_FORMAT GW_IMPORT_SMI_DMON
#include "fuzz_import_format.h"
