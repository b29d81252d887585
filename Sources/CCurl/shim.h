#ifndef HOTSPOT_CCURL_SHIM_H
#define HOTSPOT_CCURL_SHIM_H
#include <curl/curl.h>
#endif
