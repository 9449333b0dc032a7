#ifndef CHIREDIS_SHIM_H
#define CHIREDIS_SHIM_H
// Only the RESP reader is used: sockets and command encoding live in Swift.
#include <hiredis/hiredis.h>
#include <hiredis/read.h>
#endif
