#include "harness/profile/profile.h"
