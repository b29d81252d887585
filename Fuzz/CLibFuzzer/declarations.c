/* SPDX-License-Identifier: Apache-2.0 */
/* Only a header: see include/CLibFuzzer.h. */
#include "CLibFuzzer.h"
