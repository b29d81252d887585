/* Only a header: see include/CLibFuzzer.h. */
#include "CLibFuzzer.h"
