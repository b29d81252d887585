/* SPDX-License-Identifier: Apache-2.0 */
#ifndef HOTSPOT_CLIBFUZZER_H
#define HOTSPOT_CLIBFUZZER_H
#include <stddef.h>
#include <stdint.h>
/* libFuzzer's driver entry point (compiler-rt, LLVM >= 11), present when linking with
 * -sanitize=fuzzer. SwiftPM renames an executable's main, so hotspot-fuzz calls the driver
 * itself instead of relying on libFuzzer's own main. */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif
