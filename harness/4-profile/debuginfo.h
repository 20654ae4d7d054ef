/* Separate debug files for libdw (docs/profile.md, "Source lines"): a Dwfl_Callbacks
 * find_debuginfo that searches this machine only, by build-id (<root>/.build-id/xx/rest.debug)
 * and by .gnu_debuglink (the file's directory, its .debug/, /usr/lib/debug/DIR), a
 * candidate taken only when its build-id is the module's. libdw's standard search ends
 * with a debuginfod query, and elfutils 0.188 loads the debuginfod client (libcurl,
 * GnuTLS, Kerberos: ~15 MB of RSS) for it whether or not DEBUGINFOD_URLS names a server;
 * here the standard search runs only where it can query one (DEBUGINFOD_URLS is set) or
 * cannot (the module has no build-id). */
#pragma once

#include <elfutils/libdwfl.h>

int pmc_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		       const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		       char **debuginfo_file_name);
