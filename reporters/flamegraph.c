#include "reporters/flamegraph.h"
