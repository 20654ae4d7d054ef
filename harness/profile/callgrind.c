#include "harness/profile/callgrind.h"
