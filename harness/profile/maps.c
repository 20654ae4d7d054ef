#include "harness/profile/maps.h"
