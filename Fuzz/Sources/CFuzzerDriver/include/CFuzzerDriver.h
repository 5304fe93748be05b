// libFuzzer's driver, for an executable whose `main` is its own: SwiftPM renames an executable's
// `main` (for testing), so libFuzzer's `main` cannot be the program's.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
