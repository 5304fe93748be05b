// The hints are inline functions in include/SegmentsCPUHints.h; a C target needs one source file.
#include "SegmentsCPUHints.h"
