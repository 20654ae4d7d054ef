#include "harness/elf/symbols.h"
