/* What the writer and the reader of profile files (profile_json_write.c,
 * profile_json.c) share. */
#pragma once

/* The names of enum pmc_profile_call_graph in the file, by value (0: not said). */
static const char *const call_graph_names[] = {NULL, "none", "fp", "dwarf"};
