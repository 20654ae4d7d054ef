#include "counters/sample.h"
