// The system zlib (Debian: zlib1g-dev), for the deflate wrapping of HdrHistogram's V2 encoding.
#include <zlib.h>
